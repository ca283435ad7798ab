package dev.caduceus.spi.agent;

/** What {@link Runs#approve(String, ApprovalAnswer)} did. */
public sealed interface ApprovalOutcome {

    /** {@code count} pending requests were answered. */
    record Resolved(int count) implements ApprovalOutcome {}

    /** No such run. */
    record RunNotFound() implements ApprovalOutcome {}

    /** The run is not live (finished, interrupted, or not durable). */
    record NotActive() implements ApprovalOutcome {}

    /** The run is live but waits for no approval. */
    record NotPending() implements ApprovalOutcome {}

    /** The given request id is not pending on this run. */
    record UnknownRequest() implements ApprovalOutcome {}
}
