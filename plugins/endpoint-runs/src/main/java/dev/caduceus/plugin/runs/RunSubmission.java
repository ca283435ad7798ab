package dev.caduceus.plugin.runs;

import dev.caduceus.spi.agent.RunRequest.ClientTools;
import dev.caduceus.support.clienttools.ClientToolsField;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.support.wire.ContentNormalizer;
import dev.caduceus.spi.model.ModelOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One {@code POST /v1/runs} body after validation. Immutable.
 *
 * @param input              the turn input: the normalized content of {@code input} (a string, or the
 *                           last array element's {@code content}); never without visible payload
 * @param inputHistory       the earlier {@code input} array elements with a role and content, text
 *                           flattened; used only when no other history source is given
 * @param explicitHistory    {@code conversation_history} as text messages, or null when absent
 * @param instructions       {@code instructions}, or null
 * @param previousResponseId {@code previous_response_id}, or null
 * @param sessionId          {@code session_id}, or null
 * @param model              the {@code model} string as sent, or null
 * @param provider           the {@code provider} string as sent, or null (recorded only: there is one upstream)
 * @param options            {@code reasoning_effort} and {@code service_tier} from {@code model_options}
 * @param clientTools        the caller's own functions ({@code tools}, in the Chat Completions or the Responses
 *                           shape), {@code tool_choice} and {@code parallel_tool_calls}
 */
record RunSubmission(List<ContentPart> input, List<Message> inputHistory, List<Message> explicitHistory,
                     String instructions, String previousResponseId, String sessionId, String model,
                     String provider, ModelOptions options, ClientTools clientTools) {
    RunSubmission {
        input = List.copyOf(input);
        inputHistory = List.copyOf(inputHistory);
        if (explicitHistory != null) explicitHistory = List.copyOf(explicitHistory);
        requireNonNull(options, "options");
    }

    /**
     * Validates {@code body}; every problem is a 400 in the contract's words.
     *
     * @param hostTool whether a name is one of the server's own tools (a client function may not take it)
     * @param files    what the input's file parts become (placed in the workspace, described to the model)
     */
    static RunSubmission parse(JsonNode body, java.util.function.Predicate<String> hostTool, ContentNormalizer.FileParts files) {
        var input = body.get("input");
        if (falsy(input)) throw RunErrors.badRequest("missing_input", "Missing 'input' field", "input");
        if (!input.isTextual() && !input.isArray())
            throw RunErrors.badRequest("invalid_input", "'input' must be a string or array", "input");
        var content = input.isTextual() ? ContentNormalizer.normalize(input, "input") : last(input, files);
        if (!visible(content))
            throw RunErrors.badRequest("no_user_message", "No user message found in input", "input");
        return new RunSubmission(content, input.isArray() ? earlier(input) : List.of(),
                history(body.get("conversation_history")), text(body.get("instructions")),
                text(body.get("previous_response_id")), SessionRules.sessionId(body.get("session_id")),
                text(body.get("model")), text(body.get("provider")), dev.caduceus.support.wire.ModelOptionsField.parse(body.get("model_options")),
                ClientToolsField.parse(body, ClientToolsField.Shape.of(body), hostTool));
    }

    /**
     * Python's falsiness, which Hermes applies to {@code input}: absent, null, "", [], {}, false, 0.
     * A float is compared as a double, never converted to a decimal: a literal beyond the double
     * range ({@code 1e400}) parses as an infinite double, which has no decimal value (it was a 500),
     * and is truthy as in Python ({@code float("1e400")} is {@code inf}); {@code 1e-400} is 0.0.
     */
    private static boolean falsy(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) return true;
        if (node.isTextual()) return node.asText().isEmpty();
        if (node.isContainerNode()) return node.isEmpty();
        if (node.isBoolean()) return !node.asBoolean();
        if (node.isFloat() || node.isDouble()) return node.doubleValue() == 0.0;
        if (node.isNumber()) return node.decimalValue().signum() == 0;
        return false;
    }

    /** The last array element's {@code content} (a bare element is its own content), normalized. */
    private static List<ContentPart> last(JsonNode input, ContentNormalizer.FileParts files) {
        int i = input.size() - 1;
        var item = input.get(i);
        if (item.isObject()) return ContentNormalizer.normalize(item.get("content"), "input[" + i + "].content", files);
        return ContentNormalizer.normalize(item, "input[" + i + "]", files);
    }

    /** Earlier elements with a {@code role} and non-empty {@code content}, as user or assistant text messages. */
    private static List<Message> earlier(JsonNode input) {
        var messages = new ArrayList<Message>();
        for (int i = 0; i < input.size() - 1; i++) {
            var item = input.get(i);
            if (!item.isObject()) continue;
            textMessage(item.get("role"), item.get("content")).ifPresent(messages::add);
        }
        return messages;
    }

    /** {@code conversation_history}: null when absent; entries need both {@code role} and {@code content}, as in Responses. */
    private static List<Message> history(JsonNode node) {
        if (node == null || node.isNull()) return null;
        if (!node.isArray())
            throw RunErrors.badRequest("invalid_conversation_history",
                    "'conversation_history' must be an array of message objects", "conversation_history");
        var messages = new ArrayList<Message>();
        for (int i = 0; i < node.size(); i++) {
            var entry = node.get(i);
            if (!entry.isObject() || !entry.has("role") || !entry.has("content"))
                throw RunErrors.badRequest("invalid_conversation_history",
                        "conversation_history[" + i + "] must have 'role' and 'content' fields",
                        "conversation_history[" + i + "]");
            textMessage(entry.get("role"), entry.get("content")).ifPresent(messages::add);
        }
        return messages;
    }

    /**
     * A history message with its content flattened to text; only {@code user} and {@code assistant}
     * are kept (other roles are dropped, as chat and Responses do) and empty text is skipped.
     */
    private static Optional<Message> textMessage(JsonNode roleNode, JsonNode content) {
        var role = roleNode == null || !roleNode.isTextual() ? "" : roleNode.asText().trim().toLowerCase(Locale.ROOT);
        if (!role.equals("user") && !role.equals("assistant")) return Optional.empty();
        var text = ContentNormalizer.flattenText(content);
        if (text.isEmpty()) return Optional.empty();
        var cut = TextLimit.cut(text, ContentNormalizer.MAX_TEXT);
        return Optional.of(new Message(role, List.of(new ContentPart.Text(cut)), List.of(), null, null));
    }

    private static String text(JsonNode node) {
        return node != null && node.isTextual() && !node.asText().isBlank() ? node.asText() : null;
    }

    private static boolean visible(List<ContentPart> parts) {
        return parts.stream().anyMatch(p -> switch (p) {
            case ContentPart.Text t -> !t.text().isBlank();
            case ContentPart.ImageUrl i -> true;
        });
    }
}
