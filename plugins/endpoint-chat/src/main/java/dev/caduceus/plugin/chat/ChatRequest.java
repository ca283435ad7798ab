package dev.caduceus.plugin.chat;

import dev.caduceus.support.wire.ContentNormalizer;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.support.wire.Flags;
import dev.caduceus.spi.model.ModelOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One chat-completions request body after validation. Immutable.
 *
 * @param model          the {@code model} string to echo in responses
 * @param stream         whether to answer with server-sent events
 * @param includeUsage   {@code stream_options.include_usage}
 * @param systemText     the flattened system messages ({@code ""} when none)
 * @param history        user and assistant messages before the turn input, oldest first
 * @param turn           the last kept message: this turn's input
 * @param firstUserText  text of the first user message ({@code ""} when none), for the derived session id
 * @param options        {@code reasoning_effort} and {@code service_tier} from {@code model_options}
 * @param body           the raw body, for the idempotency fingerprint
 */
record ChatRequest(String model, boolean stream, boolean includeUsage, String systemText, List<Message> history,
                   Message turn, String firstUserText, ModelOptions options, JsonNode body) {
    static final int MAX_SYSTEM_BYTES = 64 * 1024;

    ChatRequest {
        requireNonNull(model, "model");
        requireNonNull(systemText, "systemText");
        history = List.copyOf(history);
        requireNonNull(turn, "turn");
        requireNonNull(firstUserText, "firstUserText");
        requireNonNull(options, "options");
    }

    /** Validates {@code body}; every problem is a 400 in the contract's words. */
    static ChatRequest parse(JsonNode body, String advertisedModel) {
        var messages = body.get("messages");
        if (!body.isObject() || messages == null || !messages.isArray() || messages.isEmpty())
            throw ApiError.badRequest("missing_messages", "Missing or invalid 'messages' field", null).exception();
        var systems = new ArrayList<String>();
        var kept = new ArrayList<Message>();
        String firstUser = null;
        for (int i = 0; i < messages.size(); i++) {
            var m = messages.get(i);
            var role = m.path("role").asText("").trim().toLowerCase(Locale.ROOT);
            if (role.equals("system")) {
                var text = ContentNormalizer.flattenText(m.get("content"));
                if (!text.isEmpty()) systems.add(text);
            } else if (role.equals("user") || role.equals("assistant")) {
                var parts = ContentNormalizer.normalize(m.get("content"), "messages[" + i + "].content");
                var message = new Message(role, parts, List.of(), null, null);
                if (role.equals("user") && firstUser == null) firstUser = textOf(parts);
                kept.add(message);
            }
        }
        if (kept.isEmpty() || !visible(kept.getLast()))
            throw ApiError.badRequest("no_user_message", "No user message found in messages", null).exception();
        var model = body.path("model").isTextual() && !body.get("model").asText().isEmpty()
                ? body.get("model").asText() : advertisedModel;
        var stream = Flags.parse(body.get("stream"), false);
        var includeUsage = stream && Flags.parse(body.path("stream_options").get("include_usage"), false);
        return new ChatRequest(model, stream, includeUsage, cutUtf8(String.join("\n", systems), MAX_SYSTEM_BYTES),
                kept.subList(0, kept.size() - 1), kept.getLast(), firstUser == null ? "" : firstUser,
                dev.caduceus.support.wire.ModelOptionsField.parse(body.get("model_options")), body);
    }

    private static boolean visible(Message m) {
        return m.content().stream().anyMatch(p -> switch (p) {
            case ContentPart.Text t -> !t.text().isBlank();
            case ContentPart.ImageUrl i -> true;
        });
    }

    private static String textOf(List<ContentPart> parts) {
        return String.join("\n", parts.stream()
                .filter(p -> p instanceof ContentPart.Text).map(p -> ((ContentPart.Text) p).text()).toList());
    }

    private static String cutUtf8(String text, int maxBytes) {
        var bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxBytes) return text;
        int end = maxBytes;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) end--; // do not split a code point
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }
}
