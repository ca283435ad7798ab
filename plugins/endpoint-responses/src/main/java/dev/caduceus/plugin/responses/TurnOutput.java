package dev.caduceus.plugin.responses;

import dev.caduceus.spi.agent.RunRequest.ClientTools;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.support.clienttools.ToolTranscript;
import java.util.HashMap;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunResult;
import java.util.ArrayList;
import java.util.List;

/**
 * A finished turn in the non-streaming wire terms: the output items in
 * transcript order, whether the response failed, and the messages it adds to the transcript.
 * Stateless.
 */
final class TurnOutput {
    static final String INTERNAL_ERROR = "Internal server error";

    private TurnOutput() {}

    /** Failed, or no final text (unless it ended with the client's calls): the response's status is {@code failed}. */
    static boolean failed(RunResult result) {
        if (result.stopReason() == StopReason.TOOL_CALLS) return false;
        return result.stopReason().failed() || result.output() == null || result.output().isBlank();
    }

    /** The error text of a failed turn, never blank. */
    static String errorText(RunResult result) {
        if (result.error() != null && !result.error().isBlank()) return result.error();
        return "Agent did not complete (" + result.stopReason().wireName() + ")";
    }

    /**
     * The response object for {@code result}; {@code client} tells the caller's own calls from the server's; a
     * completed one gets {@code completedAt} (unix seconds).
     */
    static ObjectNode envelope(Envelope envelope, RunResult result, ClientTools client, long completedAt) {
        var failed = failed(result);
        var body = envelope.build(failed ? "failed" : "completed", items(result, client), result.usage(),
                failed ? Envelope.error(errorText(result)) : null);
        return failed ? body : Envelope.completedAt(body, completedAt);
    }

    /**
     * One {@code mcp_call} per call the server ran (with its result), then the message if any text, then one
     * {@code function_call} per call of the caller's own functions (the caller runs them).
     */
    static ArrayNode items(RunResult result, ClientTools client) {
        var results = new HashMap<String, String>();
        for (var m : result.messages())
            if (m.role().equals("tool") && m.toolCallId() != null) results.put(m.toolCallId(), m.text());
        var items = Envelope.JSON.arrayNode();
        var clientCalls = new ArrayList<ObjectNode>();
        for (var m : result.messages()) {
            for (var call : m.toolCalls()) {
                var arguments = ToolTranscript.argumentsText(call.arguments());
                if (client.has(call.name()))
                    clientCalls.add(Envelope.functionCall(Envelope.newItemId("fc_"), "completed", call.name(), arguments,
                            call.id()));
                else
                    items.add(Envelope.mcpCall(Envelope.newItemId("mcp_"), "completed", call.name(), arguments,
                            results.getOrDefault(call.id(), "")));
            }
        }
        if (result.output() != null && !result.output().isBlank())
            items.add(Envelope.message(Envelope.newItemId("msg_"), "completed", result.output()));
        clientCalls.forEach(items::add);
        return items;
    }

    /**
     * The turn's messages for the transcript; the answer (or the error text) is added when missing, except after the
     * caller's own calls (their answers come next).
     */
    static List<Message> produced(RunResult result) {
        var messages = new ArrayList<>(result.messages());
        if (result.stopReason() == StopReason.TOOL_CALLS) return messages;
        var last = messages.isEmpty() ? null : messages.getLast();
        var answered = last != null && last.role().equals("assistant") && last.toolCalls().isEmpty()
                && !last.text().isBlank();
        if (!answered) {
            if (!failed(result)) messages.add(Message.assistant(result.output()));
            else messages.add(Message.assistant(errorText(result)));
        }
        return messages;
    }
}
