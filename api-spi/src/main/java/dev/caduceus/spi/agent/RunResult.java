package dev.caduceus.spi.agent;

import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.message.Usage;
import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * How an agent turn ended, as returned by an {@link AgentRuntime} and by {@link RunHandle#await()}.
 * Immutable.
 *
 * @param stopReason why the turn ended; fixes {@code status} (see {@link #of})
 * @param output     final answer text; may be partial or null
 * @param errorCode  a contract error code when the turn did not complete ({@code agent_error},
 *                   {@code output_truncated}, {@code model_not_configured}, …), else null
 * @param error      a redacted, human-readable error when the turn did not complete, else null
 * @param messages   the messages this turn added (assistant messages with their tool calls, tool
 *                   results, the final answer), oldest first; stored in the session transcript
 */
public record RunResult(RunStatus status, StopReason stopReason, String output, Usage usage, String errorCode,
                        String error, List<Message> messages) {
    public RunResult {
        requireNonNull(status, "status");
        requireNonNull(stopReason, "stopReason");
        requireNonNull(usage, "usage");
        messages = List.copyOf(messages);
        if (!status.isTerminal()) throw new IllegalArgumentException("status must be terminal: " + status);
    }

    /** A result whose status follows from the stop reason. */
    public static RunResult of(StopReason reason, String output, Usage usage, String errorCode, String error,
                               List<Message> messages) {
        var status = switch (reason) {
            case STOP, TOOL_CALLS, ITERATION_LIMIT, OUTPUT_LENGTH, CONTEXT_LENGTH -> RunStatus.COMPLETED;
            case INTERRUPTED -> RunStatus.CANCELLED;
            case UPSTREAM_ERROR, EMPTY_RESPONSE, INTERNAL_ERROR -> RunStatus.FAILED;
        };
        return new RunResult(status, reason, output, usage, errorCode, error, messages);
    }

    /** A final answer. */
    public static RunResult completed(String output, Usage usage, List<Message> messages) {
        return of(StopReason.STOP, output, usage, null, null, messages);
    }
}
