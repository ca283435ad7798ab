package dev.caduceus.plugin.responses;

import dev.caduceus.support.wire.ContentNormalizer;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.support.wire.Flags;
import dev.caduceus.spi.model.ModelOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One {@code POST /v1/responses} body after validation. Immutable.
 *
 * @param model              the {@code model} string to echo
 * @param stream             answer with server-sent events
 * @param store              keep the response (default true)
 * @param input              the input messages, oldest first; the last one is the turn input
 * @param instructions       explicit {@code instructions}, or null (then inherited from the chain)
 * @param previousResponseId {@code previous_response_id}, or null
 * @param conversation       the conversation name, or null
 * @param explicitHistory    {@code conversation_history} messages, or null when absent
 * @param truncateAuto       {@code truncation: "auto"}: only the last 100 history messages are sent
 * @param metadata           {@code metadata} to echo and store
 * @param options            {@code reasoning_effort} and {@code service_tier} from {@code model_options}
 * @param body               the raw body, for the idempotency fingerprint and model selection
 */
record ResponseRequest(String model, boolean stream, boolean store, List<Message> input, String instructions,
                       String previousResponseId, String conversation, List<Message> explicitHistory,
                       boolean truncateAuto, ObjectNode metadata, ModelOptions options, JsonNode body) {
    static final int AUTO_TRUNCATION_MESSAGES = 100;

    ResponseRequest {
        requireNonNull(model, "model");
        input = List.copyOf(input);
        if (explicitHistory != null) explicitHistory = List.copyOf(explicitHistory);
        requireNonNull(metadata, "metadata");
        requireNonNull(options, "options");
    }

    /** Validates {@code body}; every problem is a 400 in the contract's words. */
    static ResponseRequest parse(JsonNode body, String advertisedModel) {
        var input = body.get("input");
        if (input == null || input.isNull())
            throw bad("missing_input", "Missing 'input' field", "input");
        var history = history(body.get("conversation_history"));
        var previous = text(body.get("previous_response_id"));
        var conversation = conversation(body.get("conversation"));
        if (conversation != null && previous != null)
            throw bad("conversation_conflict", "Cannot use both 'conversation' and 'previous_response_id'", null);
        var messages = inputMessages(input);
        if (messages.isEmpty() || !visible(messages.getLast()))
            throw bad("no_user_message", "No user message found in input", "input");
        var model = body.path("model").isTextual() && !body.get("model").asText().isEmpty()
                ? body.get("model").asText() : advertisedModel;
        var metadata = body.path("metadata").isObject() ? ((ObjectNode) body.get("metadata")).deepCopy()
                : JsonNodeFactory.instance.objectNode();
        var instructions = body.path("instructions").isTextual() ? body.get("instructions").asText() : null;
        return new ResponseRequest(model, Flags.parse(body.get("stream"), false), Flags.parse(body.get("store"), true), messages,
                instructions, previous, conversation, history,
                "auto".equals(body.path("truncation").asText(null)), metadata, dev.caduceus.support.wire.ModelOptionsField.parse(body.get("model_options")),
                body);
    }

    private static List<Message> inputMessages(JsonNode input) {
        var messages = new ArrayList<Message>();
        if (input.isTextual()) {
            messages.add(message("user", ContentNormalizer.normalize(input, "input")));
            return messages;
        }
        if (!input.isArray()) throw bad("invalid_input", "'input' must be a string or array", "input");
        for (int i = 0; i < input.size(); i++) {
            var item = input.get(i);
            if (item.isTextual()) {
                messages.add(message("user", ContentNormalizer.normalize(item, "input[" + i + "]")));
            } else if (item.isObject()) {
                var type = item.path("type").asText("message");
                if (!type.equals("message")) continue; // function_call, reasoning, …: skipped
                var role = item.path("role").isTextual() ? item.get("role").asText().trim().toLowerCase(Locale.ROOT)
                        : "user";
                messages.add(message(role.isEmpty() ? "user" : role,
                        ContentNormalizer.normalize(item.get("content"), "input[" + i + "].content")));
            }
        }
        return messages;
    }

    /** {@code conversation_history}: null when absent; entries need both {@code role} and {@code content}. */
    private static List<Message> history(JsonNode node) {
        if (node == null || node.isNull()) return null;
        if (!node.isArray())
            throw bad("invalid_conversation_history", "'conversation_history' must be an array",
                    "conversation_history");
        var messages = new ArrayList<Message>();
        for (int i = 0; i < node.size(); i++) {
            var entry = node.get(i);
            if (!entry.isObject() || !entry.has("role") || !entry.has("content"))
                throw bad("invalid_conversation_history",
                        "conversation_history[" + i + "] must have 'role' and 'content' fields",
                        "conversation_history[" + i + "]");
            var role = entry.get("role").asText("").trim().toLowerCase(Locale.ROOT);
            var parts = ContentNormalizer.normalize(entry.get("content"), "conversation_history[" + i + "].content");
            // Only user and assistant turns make sense to replay upstream; other roles are dropped, as chat does.
            if (role.equals("user") || role.equals("assistant")) messages.add(message(role, parts));
        }
        return messages;
    }

    private static String conversation(JsonNode node) {
        if (node == null || node.isNull()) return null;
        if (node.isObject()) return text(node.get("id"));
        return text(node);
    }

    private static String text(JsonNode node) {
        return node != null && node.isTextual() && !node.asText().isBlank() ? node.asText() : null;
    }

    private static Message message(String role, List<ContentPart> parts) {
        return new Message(role, parts, List.of(), null, null);
    }

    private static boolean visible(Message m) {
        return m.content().stream().anyMatch(p -> switch (p) {
            case ContentPart.Text t -> !t.text().isBlank();
            case ContentPart.ImageUrl i -> true;
        });
    }

    private static RuntimeException bad(String code, String message, String param) {
        return ApiError.badRequest(code, message, param).exception();
    }
}
