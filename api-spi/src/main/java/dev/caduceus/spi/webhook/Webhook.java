package dev.caduceus.spi.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A webhook a caller named on a request ({@code "webhook": "https://…"} or {@code {"url": …, "events": […]}}):
 * the events of its run, job or background response go there, signed with the deployment's
 * {@code webhooks.secret}. Immutable.
 *
 * @param url    an http or https URL
 * @param events the event types wanted ({@link #EVENTS}); empty: all
 */
public record Webhook(URI url, List<String> events) {
    /** Every event type a webhook may be sent. */
    public static final List<String> EVENTS = List.of("run.completed", "run.failed", "run.cancelled",
            "run.requires_action", "approval.requested", "job.run.completed", "job.run.failed",
            "response.completed", "response.failed", "response.cancelled", "key.budget_warning");
    private static final int MAX_URL_CHARS = 2048;

    public Webhook {
        Objects.requireNonNull(url, "url");
        var scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || url.getHost() == null)
            throw new IllegalArgumentException("webhook url must be an http or https URL with a host");
        events = List.copyOf(events);
        for (var event : events)
            if (!EVENTS.contains(event))
                throw new IllegalArgumentException("webhook events names '" + event + "', not an event (one of "
                        + String.join(", ", EVENTS) + ")");
    }

    /** Whether events of {@code type} go to this webhook. */
    public boolean wants(String type) {
        return events.isEmpty() || events.contains(type);
    }

    /** As stored and shown: {@code {"url": …}}, with {@code "events"} when not all; {@link #fromJson} reads it back. */
    public com.fasterxml.jackson.databind.node.ObjectNode toJson() {
        var node = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("url", url.toString());
        if (!events.isEmpty()) events.forEach(node.putArray("events")::add);
        return node;
    }

    /**
     * The {@code webhook} field of a request: a URL string, or an object with {@code url} and optional
     * {@code events}. Throws {@link IllegalArgumentException} with a message for the caller otherwise.
     */
    public static Webhook fromJson(JsonNode node) {
        if (node == null || node.isNull()) throw new IllegalArgumentException("webhook must be a URL or {url, events}");
        JsonNode url = node.isObject() ? node.get("url") : node;
        if (url == null || !url.isTextual())
            throw new IllegalArgumentException("webhook must be a URL string or an object with a url string");
        if (node.isObject())
            for (var names = node.fieldNames(); names.hasNext(); ) {
                var name = names.next();
                if (!name.equals("url") && !name.equals("events"))
                    throw new IllegalArgumentException("webhook has an unknown field '" + name + "' (url, events)");
            }
        var events = new ArrayList<String>();
        if (node.isObject() && node.has("events")) {
            var list = node.get("events");
            if (!list.isArray()) throw new IllegalArgumentException("webhook events must be an array of event types");
            for (var event : list) {
                if (!event.isTextual()) throw new IllegalArgumentException("webhook events must be an array of event types");
                events.add(event.asText());
            }
        }
        var text = url.asText().trim();
        if (text.length() > MAX_URL_CHARS) throw new IllegalArgumentException("webhook url is longer than " + MAX_URL_CHARS);
        try {
            return new Webhook(new URI(text), events);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("webhook url is not a URL: " + e.getReason());
        }
    }
}
