package dev.caduceus.spi.agent;

import static java.util.Objects.requireNonNull;

/**
 * How a run ended, as returned by an {@link AgentRuntime} and by {@link RunHandle#await()}.
 * Immutable.
 *
 * @param output    final answer text; may be partial on failure or cancellation
 * @param errorCode contract error code when {@code status} is {@code FAILED}, else null
 * @param error     redacted error message when failed, else null
 */
public record RunResult(RunStatus status, String output, Usage usage, String errorCode, String error) {
    public RunResult {
        requireNonNull(status, "status");
        requireNonNull(usage, "usage");
        if (!status.isTerminal()) throw new IllegalArgumentException("status must be terminal: " + status);
    }

    public static RunResult completed(String output, Usage usage) {
        return new RunResult(RunStatus.COMPLETED, output, usage, null, null);
    }

    public static RunResult failed(String code, String message, String partialOutput, Usage usage) {
        return new RunResult(RunStatus.FAILED, partialOutput, usage, code, message);
    }
}
