package dev.caduceus.plugin.chat;

import dev.caduceus.support.clienttools.ToolTranscript;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunRequest.ClientTools;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Message;
import java.util.List;
import dev.caduceus.spi.message.Usage;

/**
 * How one chat turn ended, in the terms the wire needs: the answer text, the stop
 * reason that fixes {@code completed}/{@code partial}/{@code failed}, the error text and the usage, and the
 * client's own tool calls when the turn ended with them ({@code finish_reason: tool_calls}).
 * Immutable.
 */
record TurnOutcome(String output, StopReason stopReason, String error, Usage usage,
                   List<Message.ToolCallRef> toolCalls) {

    TurnOutcome {
        requireNonNull(stopReason, "stopReason");
        usage = usage == null ? Usage.ZERO : usage;
        toolCalls = List.copyOf(toolCalls);
    }

    TurnOutcome(String output, StopReason stopReason, String error, Usage usage) {
        this(output, stopReason, error, usage, List.of());
    }

    /** This outcome with {@code text} as its answer. */
    TurnOutcome withOutput(String text) {
        return new TurnOutcome(text, stopReason, error, usage, toolCalls);
    }

    /**
     * The outcome of {@code result}; a turn that ended with the client's calls names them: the calls of the last
     * assistant message that {@code clientTools} has.
     */
    static TurnOutcome of(RunResult result, ClientTools clientTools) {
        var calls = result.stopReason() == StopReason.TOOL_CALLS
                ? ToolTranscript.clientCalls(result.messages(), clientTools) : List.<Message.ToolCallRef>of();
        return new TurnOutcome(result.output(), result.stopReason(), result.error(), result.usage(), calls);
    }

    /** This outcome naming the client's {@code calls}. */
    TurnOutcome withToolCalls(List<Message.ToolCallRef> calls) {
        return new TurnOutcome(output, stopReason, error, usage, calls);
    }

    static TurnOutcome of(RunResult result) {
        return new TurnOutcome(result.output(), result.stopReason(), result.error(), result.usage());
    }

    static TurnOutcome of(RunEvent.Completed c) {
        return new TurnOutcome(c.output(), c.stopReason() == null ? StopReason.STOP : c.stopReason(), c.error(),
                c.usage());
    }

    static TurnOutcome of(RunEvent.Failed f) {
        var reason = f.stopReason() == null || !f.stopReason().failed() ? StopReason.INTERNAL_ERROR : f.stopReason();
        return new TurnOutcome(f.partialOutput(), reason, f.message(), f.usage());
    }

    static TurnOutcome of(RunEvent.Cancelled c) {
        return new TurnOutcome(c.partialOutput(), StopReason.INTERRUPTED, c.reason() == null ? "Interrupted"
                : c.reason(), c.usage());
    }

    /** {@code tool_calls}, {@code length}, {@code error} or {@code stop}. */
    String finishReason() {
        if (stopReason == StopReason.TOOL_CALLS) return "tool_calls";
        if (stopReason.truncated()) return "length";
        if (stopReason.failed()) return "error";
        return "stop";
    }

    /** No answer text, and the turn failed or stopped early: a 502 on the non-streaming route. */
    boolean hardFailure() {
        return (output == null || output.isBlank()) && (stopReason.failed() || stopReason.partial());
    }

    /** The error text, never null when the turn did not complete. */
    String errorText() {
        if (error != null && !error.isBlank()) return error;
        return stopReason.completed() ? "" : "Agent did not complete (" + stopReason.wireName() + ")";
    }

    /** {@code {"completed","partial","failed"}}, plus {@code error} and {@code error_code} when {@code detailed}. */
    ObjectNode hermes(boolean detailed) {
        var node = JsonNodeFactory.instance.objectNode()
                .put("completed", stopReason.completed())
                .put("partial", stopReason.partial())
                .put("failed", stopReason.failed());
        if (detailed) {
            node.put("error", errorText());
            node.put("error_code", finishReason().equals("length") ? "output_truncated" : "agent_error");
        }
        return node;
    }
}
