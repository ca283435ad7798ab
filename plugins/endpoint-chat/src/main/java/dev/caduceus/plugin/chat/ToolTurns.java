package dev.caduceus.plugin.chat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.support.wire.ContentNormalizer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * Tool calls in a chat history: an assistant message's {@code tool_calls} and the {@code tool} messages that answer
 * them, read from the wire and paired the way a model API requires (every call answered, every answer after its
 * call). A history that breaks the pairing (a client that trimmed it, a call it never answered) keeps its text:
 * unanswered calls and orphan answers are left out rather than refused. Stateless.
 */
final class ToolTurns {
    /** The marker of arguments that are not a JSON object, kept verbatim (the provider sends them back as they were). */
    static final String INVALID_ARGUMENTS = "__invalid_arguments__";
    private static final ObjectMapper JSON = new ObjectMapper();

    private ToolTurns() {}

    /**
     * A history split for a turn. Immutable.
     *
     * @param history the messages before the turn input, paired
     * @param input   the turn input: the last message, or the tool messages that answer the last assistant
     *                message's calls (a continuation); empty when nothing is left to answer
     */
    record Split(List<Message> history, List<Message> input) {
        Split {
            history = List.copyOf(history);
            input = List.copyOf(input);
        }
    }

    /** An assistant message's {@code tool_calls} (absent or null: none). */
    static List<Message.ToolCallRef> calls(JsonNode node, String param) {
        if (node == null || node.isNull()) return List.of();
        if (!node.isArray()) throw invalid("Invalid '" + param + "': expected an array.", param);
        var calls = new ArrayList<Message.ToolCallRef>();
        for (int i = 0; i < node.size(); i++) {
            var call = node.get(i);
            var at = param + "[" + i + "]";
            var function = call.path("function");
            if (!call.path("id").isTextual() || call.path("id").asText().isEmpty())
                throw invalid("Invalid '" + at + ".id': expected a non-empty string.", at + ".id");
            if (!function.path("name").isTextual())
                throw invalid("Invalid '" + at + ".function.name': expected a string.", at + ".function.name");
            var arguments = function.get("arguments");
            if (arguments != null && !arguments.isNull() && !arguments.isTextual() && !arguments.isObject())
                throw invalid("Invalid '" + at + ".function.arguments': expected a JSON string.", at + ".function.arguments");
            calls.add(new Message.ToolCallRef(call.get("id").asText(), function.get("name").asText(), arguments(arguments)));
        }
        return calls;
    }

    /** A {@code tool} message: its {@code tool_call_id} and its content as text. */
    static Message result(JsonNode message, String param) {
        var id = message.get("tool_call_id");
        if (id == null || !id.isTextual() || id.asText().isEmpty())
            throw ApiError.badRequest("missing_required_parameter", "Missing required parameter: '" + param
                    + ".tool_call_id'.", param + ".tool_call_id").exception();
        var text = ContentNormalizer.flattenText(message.get("content"));
        var name = message.path("name").isTextual() ? message.get("name").asText() : null;
        return new Message("tool", List.of(new ContentPart.Text(text)), List.of(), id.asText(), name);
    }

    /**
     * {@code messages} paired and split: an assistant message keeps the calls that a following {@code tool} message
     * answers (none left and no text: it is left out), each answer follows its call once, and orphan answers are left
     * out. The input is the trailing answers when the history ends with them, else the last message.
     */
    static Split split(List<Message> messages) {
        var paired = new ArrayList<Message>(messages.size());
        int i = 0;
        while (i < messages.size()) {
            var m = messages.get(i);
            if (m.role().equals("tool")) { // an answer to no call before it
                i++;
                continue;
            }
            if (!m.role().equals("assistant") || m.toolCalls().isEmpty()) {
                paired.add(m);
                i++;
                continue;
            }
            int end = i + 1;
            var answers = new LinkedHashMap<String, Message>();
            while (end < messages.size() && messages.get(end).role().equals("tool")) {
                answers.putIfAbsent(messages.get(end).toolCallId(), messages.get(end));
                end++;
            }
            var kept = new ArrayList<Message.ToolCallRef>();
            var ids = new HashSet<String>();
            for (var call : m.toolCalls()) if (answers.containsKey(call.id()) && ids.add(call.id())) kept.add(call);
            if (!kept.isEmpty()) {
                paired.add(new Message("assistant", m.content(), kept, null, m.name()));
                for (var call : kept) paired.add(answers.get(call.id()));
            } else if (!m.content().isEmpty()) {
                paired.add(new Message("assistant", m.content(), List.of(), null, m.name()));
            }
            i = end;
        }
        int first = paired.size();
        while (first > 0 && paired.get(first - 1).role().equals("tool")) first--;
        if (first == paired.size()) first = Math.max(0, paired.size() - 1);
        return new Split(paired.subList(0, first), paired.subList(first, paired.size()));
    }

    /** The arguments as an object; anything else is kept verbatim under {@link #INVALID_ARGUMENTS}. */
    private static ObjectNode arguments(JsonNode arguments) {
        if (arguments == null || arguments.isNull()) return JSON.createObjectNode();
        if (arguments.isObject()) return (ObjectNode) arguments;
        var text = arguments.asText();
        if (text.isBlank()) return JSON.createObjectNode();
        try {
            var parsed = JSON.readTree(text);
            if (parsed != null && parsed.isObject()) return (ObjectNode) parsed;
        } catch (JsonProcessingException e) {
            // kept verbatim below
        }
        return JSON.createObjectNode().put(INVALID_ARGUMENTS, text);
    }

    /** The arguments as the wire's JSON string (verbatim when they were not an object). */
    static String argumentsText(ObjectNode arguments) {
        var raw = arguments.get(INVALID_ARGUMENTS);
        if (raw != null && raw.isTextual() && arguments.size() == 1) return raw.asText();
        try {
            return JSON.writeValueAsString(arguments);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize tool arguments", e); // a tree always serializes
        }
    }

    private static RuntimeException invalid(String message, String param) {
        return ApiError.badRequest("invalid_value", message, param).exception();
    }
}
