package dev.caduceus.platform.runtime.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.RunRequest.ClientTools;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelRequest.ToolChoice;
import dev.caduceus.spi.tool.ToolSpec;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * The caller's own functions in one turn ({@link ClientTools}): which of the model's calls are the caller's, the
 * host's ids for them ({@code call_} + 24 random characters, so that a continuation naming them is this host's
 * and no other turn's), their arguments redacted as tool results are, the {@code tool_choice} of each model call,
 * and the caller's results capped and redacted like a tool's. Immutable; thread-safe.
 */
final class ClientCalls {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".toCharArray();

    private final ClientTools tools;
    private final Redactor redactor;

    ClientCalls(ClientTools tools, Redactor redactor) {
        this.tools = tools;
        this.redactor = redactor;
    }

    /** The tools offered to the model: the host's, then the caller's. */
    List<ToolSpec> offered(List<ToolSpec> host) {
        if (tools.tools().isEmpty()) return host;
        var all = new ArrayList<ToolSpec>(host.size() + tools.tools().size());
        all.addAll(host);
        all.addAll(tools.tools());
        return all;
    }

    /**
     * The {@code tool_choice} of a model call: {@code none} for every call, {@code required} and a named tool for the
     * turn's first call only ({@code auto} after it, or the agent could never stop calling tools); a named tool that
     * is not offered is {@code auto}.
     */
    ToolChoice choice(boolean firstCall, List<ToolSpec> offered) {
        return switch (tools.choice()) {
            case ToolChoice.None none -> ToolChoice.NONE;
            case ToolChoice.Auto auto -> ToolChoice.AUTO;
            case ToolChoice.Required required -> firstCall ? ToolChoice.REQUIRED : ToolChoice.AUTO;
            case ToolChoice.Named named -> firstCall && offered.stream().anyMatch(s -> s.name().equals(named.name()))
                    ? named : ToolChoice.AUTO;
        };
    }

    Boolean parallel() {
        return tools.parallelToolCalls();
    }

    /** Whether the model's call is the caller's to run. */
    boolean isClients(ModelEvent.ToolCall call) {
        return isClients(call.name());
    }

    /** Whether a call of tool {@code name} is the caller's to run. */
    boolean isClients(String name) {
        return tools.has(name);
    }

    /** The call as the transcript and the caller see it: a host id, the arguments redacted. */
    Message.ToolCallRef issue(ModelEvent.ToolCall call) {
        return new Message.ToolCallRef(newId(), call.name(), redacted(call.arguments()));
    }

    /**
     * The turn's input with the caller's newest results (the {@code tool} messages after the last assistant
     * message) cut at a tool's default result cap and redacted, as the host's own tool results are.
     */
    List<Message> capResults(List<Message> messages) {
        int first = messages.size();
        while (first > 0 && messages.get(first - 1).role().equals("tool")) first--;
        if (first == messages.size()) return messages;
        var out = new ArrayList<Message>(messages.subList(0, first));
        for (var m : messages.subList(first, messages.size())) {
            var text = capped(m.text());
            out.add(text.equals(m.text()) && m.content().size() <= 1 ? m
                    : new Message("tool", List.of(new ContentPart.Text(text)), List.of(), m.toolCallId(), m.name()));
        }
        return out;
    }

    /** A caller's result as the model gets it: redacted, cut at a tool's default result cap. */
    String capped(String output) {
        return ToolDispatcher.cap(redactor.redact(output == null ? "" : output), ToolSpec.DEFAULT_MAX_RESULT_CHARS);
    }

    private ObjectNode redacted(ObjectNode arguments) {
        try {
            var text = JSON.writeValueAsString(arguments);
            var clean = redactor.redact(text);
            return clean.equals(text) ? arguments : (ObjectNode) JSON.readTree(clean);
        } catch (JsonProcessingException | ClassCastException e) {
            return JSON.createObjectNode().put("_redacted", true); // a mask that broke the JSON: nothing leaks
        }
    }

    private static String newId() {
        var id = new StringBuilder("call_");
        for (int i = 0; i < 24; i++) id.append(ALPHABET[RANDOM.nextInt(ALPHABET.length)]);
        return id.toString();
    }
}
