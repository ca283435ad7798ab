package dev.caduceus.support.clienttools;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.message.Message;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * Tool calls in a history: assistant messages with calls and the {@code tool} messages that answer them, paired the
 * way a model API requires (every call answered, every answer after its call), and the turn input split off. A history
 * that breaks the pairing (a client that trimmed it, a call it never answered) keeps its text: unanswered calls and
 * orphan answers are left out rather than refused. Arguments travel as JSON text on the wire and as objects here;
 * text that is not a JSON object is kept verbatim under {@link #INVALID_ARGUMENTS}. Stateless.
 */
public final class ToolTranscript {
    /** The marker of arguments that are not a JSON object (the provider sends them back as they were). */
    public static final String INVALID_ARGUMENTS = "__invalid_arguments__";
    private static final ObjectMapper JSON = new ObjectMapper();

    private ToolTranscript() {}

    /**
     * A history split for a turn. Immutable.
     *
     * @param history the messages before the turn input, paired
     * @param input   the turn input: the last message, or the tool messages that answer the last assistant
     *                message's calls (a continuation); empty when nothing is left
     */
    public record Split(List<Message> history, List<Message> input) {
        public Split {
            history = List.copyOf(history);
            input = List.copyOf(input);
        }

        /** History then input. */
        public List<Message> all() {
            var all = new ArrayList<Message>(history.size() + input.size());
            all.addAll(history);
            all.addAll(input);
            return all;
        }
    }

    /**
     * {@code messages} paired and split: an assistant message keeps the calls that a following {@code tool} message
     * answers (none left and no text: it is left out), each answer follows its call once, and orphan answers are left
     * out. The input is the trailing answers when the history ends with them, else the last message.
     */
    public static Split split(List<Message> messages) {
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

    /** Wire arguments (JSON text, an object, or absent) as an object; other text is kept under {@link #INVALID_ARGUMENTS}. */
    public static ObjectNode arguments(JsonNode arguments) {
        if (arguments == null || arguments.isNull() || arguments.isMissingNode()) return JSON.createObjectNode();
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

    /**
     * The caller's own calls a turn ended with ({@code StopReason.TOOL_CALLS}): those of the last assistant message
     * with calls in {@code messages} that {@code client} has; empty when there is none.
     */
    public static List<Message.ToolCallRef> clientCalls(List<Message> messages, RunRequest.ClientTools client) {
        for (var m : messages.reversed())
            if (m.role().equals("assistant") && !m.toolCalls().isEmpty())
                return m.toolCalls().stream().filter(c -> client.has(c.name())).toList();
        return List.of();
    }

    /** Calls as OpenAI's chat wire lists them: {@code [{"id","type":"function","function":{"name","arguments"}}]}. */
    public static ArrayNode toolCallsJson(List<Message.ToolCallRef> calls) {
        var array = JsonNodeFactory.instance.arrayNode();
        for (var call : calls) {
            var entry = array.addObject().put("id", call.id()).put("type", "function");
            entry.putObject("function").put("name", call.name()).put("arguments", argumentsText(call.arguments()));
        }
        return array;
    }

    /** The arguments as the wire's JSON text (verbatim when they were not an object). */
    public static String argumentsText(ObjectNode arguments) {
        var raw = arguments.get(INVALID_ARGUMENTS);
        if (raw != null && raw.isTextual() && arguments.size() == 1) return raw.asText();
        try {
            return JSON.writeValueAsString(arguments);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize tool arguments", e); // a tree always serializes
        }
    }
}
