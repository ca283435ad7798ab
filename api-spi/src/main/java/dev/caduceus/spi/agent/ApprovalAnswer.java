package dev.caduceus.spi.agent;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;

/**
 * A person's answer to a run's pending approvals ({@code POST /v1/runs/{id}/approval}). Immutable.
 *
 * @param choice    {@code ONCE}, {@code SESSION}, {@code ALWAYS} or {@code DENY}
 * @param requestId the one request to answer, or null for the oldest
 * @param all       answer every pending request
 */
public record ApprovalAnswer(ApprovalChoice choice, String requestId, boolean all) {
    public ApprovalAnswer {
        requireNonNull(choice, "choice");
        if (choice == ApprovalChoice.TIMED_OUT) throw new IllegalArgumentException("a person cannot answer TIMED_OUT");
    }

    /** What {@link Runs#approve} did. */
    public sealed interface Outcome {

        /** {@code count} pending requests were answered. */
        record Resolved(int count) implements Outcome {}

        /** No such run. */
        record RunNotFound() implements Outcome {}

        /** The run is not live (finished, interrupted, or not durable). */
        record NotActive() implements Outcome {}

        /** The run is live but waits for no approval. */
        record NotPending() implements Outcome {}

        /** The given request id is not pending on this run. */
        record UnknownRequest() implements Outcome {}
    }
}
