package dev.caduceus.spi.agent;

import dev.caduceus.spi.tool.ToolContext;

import dev.caduceus.spi.tool.Cancellation;
import java.util.List;
import java.util.Set;
import static java.util.Objects.requireNonNull;

/**
 * What an {@link AgentRuntime} gets for one run.
 *
 * <p>Threading: {@link #emit} must be called from the run's own thread (it assigns sequence numbers
 * without coordination); the other methods are thread-safe. Lifecycle: valid until
 * {@link AgentRuntime#execute} returns.
 */
public interface RunContext {

    /** The run id. */
    String runId();

    /** Appends a non-terminal event to the journal. Terminal events are written by the host. */
    void emit(RunEvent event);

    /** Fires on stop, client disconnect (where the route says so) or shutdown. */
    Cancellation cancellation();

    /** Steering texts queued since the last call, oldest first; empty when none. */
    List<String> drainSteering();

    /**
     * Whether a person can answer approvals for this run (runs and job runs: yes; chat, Responses
     * and batch: no).
     */
    default boolean approvalChannel() { return false; }

    /**
     * Asks for approval of a dangerous action: the host journals an approval request, sets the run
     * to {@code waiting_for_approval} and blocks until it is answered, times out
     * ({@link ToolContext.ApprovalChoice#TIMED_OUT}) or the run is stopped
     * ({@link ToolContext.ApprovalChoice#DENY}). Without an approval channel it answers
     * {@code DENY} at once. Thread-safe: tool threads of one batch may ask concurrently.
     */
    default ToolContext.ApprovalChoice requestApproval(ToolContext.ApprovalRequest request) throws InterruptedException {
        return ToolContext.ApprovalChoice.DENY;
    }

    /**
     * Whether the caller can answer its own tool calls ({@link RunRequest.ClientTools}) while the run waits (runs and
     * job runs: yes); without it a turn whose model calls them ends with {@link StopReason#TOOL_CALLS}.
     */
    default boolean toolOutputChannel() { return false; }

    /**
     * Waits for the caller's outputs of {@code calls}, which the runtime has just announced with
     * {@link RunEvent.ToolCallsRequired} (the run's status is {@code requires_action} meanwhile): returns each call's
     * output by call id, or null when the run was stopped, timed out or the host shut down first. Only with a
     * {@link #toolOutputChannel()}.
     */
    default java.util.Map<String, String> awaitToolOutputs(java.util.List<dev.caduceus.spi.message.Message.ToolCallRef> calls)
            throws InterruptedException {
        throw new UnsupportedOperationException("this run has no tool output channel");
    }

    /**
     * Saves a message the turn adds to its transcript (an assistant message with its tool calls, a tool result, a
     * caller's tool output, steering), with the model calls made and the usage so far, so that a resumed run
     * ({@link #resumption()}) continues from it; it is committed with the run's next events. With {@code now} true it
     * returns once the message is committed ({@link #commit}). No-op for runs that cannot resume. Called from the
     * run's own thread.
     */
    default void checkpoint(dev.caduceus.spi.message.Message message, int modelCalls,
                            dev.caduceus.spi.message.Usage usage, boolean now) {}

    /**
     * Returns once everything this run emitted and saved so far is committed: a runtime calls it before it does what
     * must not happen twice unrecorded (a tool call whose tool is not {@linkplain dev.caduceus.spi.tool.ToolSpec#repeatable
     * repeatable}, right after its {@link RunEvent.ToolCallStarted}), so that a resumed run knows the call had started.
     * No-op for runs that cannot resume. Called from the run's own thread.
     */
    default void commit() {}

    /** What an earlier process of this run saved, when this run is a resumed one; null for a run that starts now. */
    default Resumption resumption() {
        return null;
    }

    /**
     * What a run had done when its server stopped, for the runtime that resumes it ({@link RunContext#resumption()}):
     * the messages it had saved ({@link RunContext#checkpoint}), oldest first, and what the journal says about the tool
     * calls of the last assistant message that have no result. Immutable.
     *
     * @param messages        the turn's saved messages: assistant messages with their tool calls, tool results, caller
     *                        outputs and steering, in the order they were saved
     * @param modelCalls      the model calls made by then
     * @param usage           the turn's usage by then
     * @param startedCalls    ids of tool calls that had started and not finished: their effects are unknown
     * @param approvalPending ids of started calls that were waiting for a person's approval (they had not run yet, so
     *                        they may be asked again)
     */
    record Resumption(List<dev.caduceus.spi.message.Message> messages, int modelCalls,
                      dev.caduceus.spi.message.Usage usage, Set<String> startedCalls, Set<String> approvalPending) {
        public Resumption {
            messages = List.copyOf(messages);
            requireNonNull(usage, "usage");
            startedCalls = Set.copyOf(startedCalls);
            approvalPending = Set.copyOf(approvalPending);
        }
    }
}
