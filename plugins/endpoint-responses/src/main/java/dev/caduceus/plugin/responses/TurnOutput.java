package dev.caduceus.plugin.responses;

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

    /** Failed, or no final text: the response's status is {@code failed}. */
    static boolean failed(RunResult result) {
        return result.stopReason().failed() || result.output() == null || result.output().isBlank();
    }

    /** The error text of a failed turn, never blank. */
    static String errorText(RunResult result) {
        if (result.error() != null && !result.error().isBlank()) return result.error();
        return "Agent did not complete (" + result.stopReason().wireName() + ")";
    }

    /** The response object for {@code result}. */
    static ObjectNode envelope(Envelope envelope, RunResult result) {
        var failed = failed(result);
        return envelope.build(failed ? "failed" : "completed", items(result), result.usage(),
                failed ? Envelope.error(errorText(result)) : null);
    }

    /** One function_call per tool call, one function_call_output per tool result, then the message if any text. */
    static ArrayNode items(RunResult result) {
        var items = Envelope.JSON.arrayNode();
        for (var m : result.messages()) {
            for (var call : m.toolCalls())
                items.add(Envelope.functionCall(Envelope.newItemId("fc_"), "completed", call.name(),
                        call.arguments().toString(), call.id()));
            if (m.role().equals("tool") && m.toolCallId() != null)
                items.add(Envelope.functionCallOutput(Envelope.newItemId("fco_"), m.toolCallId(), m.text()));
        }
        if (result.output() != null && !result.output().isBlank())
            items.add(Envelope.message(Envelope.newItemId("msg_"), "completed", result.output()));
        return items;
    }

    /** The turn's messages for the transcript; the answer (or the error text) is added when missing. */
    static List<Message> produced(RunResult result) {
        var messages = new ArrayList<>(result.messages());
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
