package dev.caduceus.platform.host.webhooks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Something a caller may want to hear of: its type, when it happened, whose it is (the key's name, for the
 * deliveries API) and its data (ids, status, usage, a bounded preview; never a secret, never a transcript).
 * The body sent is {@code {"type", "timestamp", "data"}}, the Standard Webhooks layout. Immutable.
 *
 * @param source what the event is of, unique per event ({@code run_…:17}, the run and its journal
 *               sequence): its message id is derived from it, so that writing the same event twice (a
 *               retried commit) gives one message
 */
public record WebhookEvent(String type, Instant timestamp, String owner, String source, ObjectNode data) {
    public WebhookEvent {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(timestamp, "timestamp");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(data, "data");
    }

    /** The {@code webhook-id} of this event's messages: {@code msg_} and 24 hex digits of a hash of its source. */
    public String messageId() {
        try {
            var digest = MessageDigest.getInstance("SHA-256").digest((type + "\n" + source).getBytes(StandardCharsets.UTF_8));
            return "msg_" + HexFormat.of().formatHex(digest, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The body sent: {@code {"type", "timestamp", "data"}}. */
    public ObjectNode body(com.fasterxml.jackson.databind.ObjectMapper json) {
        var body = json.createObjectNode().put("type", type).put("timestamp", timestamp.toString());
        body.set("data", data);
        return body;
    }
}
