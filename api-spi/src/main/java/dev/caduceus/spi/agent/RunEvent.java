package dev.caduceus.spi.agent;

import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.message.Usage;
import java.util.List;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What happens during a run, in order. Stored in the journal with logical type names (never class
 * names), so the set is closed: translators switch over it exhaustively. Exactly one terminal event
 * ({@link Completed}, {@link Failed}, {@link Cancelled}, {@link Interrupted}) ends every run.
 * Immutable.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = RunEvent.Started.class, name = "started"),
        @JsonSubTypes.Type(value = RunEvent.TextDelta.class, name = "text_delta"),
        @JsonSubTypes.Type(value = RunEvent.ReasoningDelta.class, name = "reasoning_delta"),
        @JsonSubTypes.Type(value = RunEvent.ToolCallStarted.class, name = "tool_call_started"),
        @JsonSubTypes.Type(value = RunEvent.ToolCallFinished.class, name = "tool_call_finished"),
        @JsonSubTypes.Type(value = RunEvent.ToolCallsRequired.class, name = "tool_calls_required"),
        @JsonSubTypes.Type(value = RunEvent.ApprovalRequested.class, name = "approval_requested"),
        @JsonSubTypes.Type(value = RunEvent.ApprovalResolved.class, name = "approval_resolved"),
        @JsonSubTypes.Type(value = RunEvent.Steered.class, name = "steered"),
        @JsonSubTypes.Type(value = RunEvent.UsageReported.class, name = "usage"),
        @JsonSubTypes.Type(value = RunEvent.Resumed.class, name = "resumed"),
        @JsonSubTypes.Type(value = RunEvent.Completed.class, name = "completed"),
        @JsonSubTypes.Type(value = RunEvent.Failed.class, name = "failed"),
        @JsonSubTypes.Type(value = RunEvent.Cancelled.class, name = "cancelled"),
        @JsonSubTypes.Type(value = RunEvent.Interrupted.class, name = "interrupted")})
public sealed interface RunEvent {

    /** Whether this event ends the run. */
    default boolean isTerminal() {
        return this instanceof Completed || this instanceof Failed || this instanceof Cancelled
                || this instanceof Interrupted;
    }

    /** The run began executing. */
    record Started(String model) implements RunEvent {}

    /** Answer text produced by the model. */
    record TextDelta(String text) implements RunEvent {
        public TextDelta { requireNonNull(text, "text"); }
    }

    /** Reasoning text produced by the model. */
    record ReasoningDelta(String text) implements RunEvent {
        public ReasoningDelta { requireNonNull(text, "text"); }
    }

    /** A tool call began. {@code argumentsPreview} is a shortened rendering for progress displays. */
    record ToolCallStarted(String callId, String tool, ObjectNode arguments, String argumentsPreview, String emoji)
            implements RunEvent {
        public ToolCallStarted {
            requireNonNull(callId, "callId");
            requireNonNull(tool, "tool");
        }
    }

    /**
     * A tool call ended; {@code result} is what the model sees.
     *
     * @param outputPreview a shortened, redacted rendering of {@code result} for progress displays
     *                      (the host's: whitespace collapsed, at most 200 characters), or null when
     *                      there is nothing to show or the emitter gives none
     */
    record ToolCallFinished(String callId, String tool, long durationMillis, boolean error, String result,
                            String outputPreview) implements RunEvent {
        public ToolCallFinished {
            requireNonNull(callId, "callId");
            requireNonNull(tool, "tool");
        }

        /** Without an output preview (the constructor before there was one; it stays for binary compatibility). */
        public ToolCallFinished(String callId, String tool, long durationMillis, boolean error, String result) {
            this(callId, tool, durationMillis, error, result, null);
        }
    }

    /**
     * The model called the caller's own functions ({@link RunRequest.ClientTools}): the host does not run them; the caller
     * does and answers with their results. Written just before the terminal event of a turn that ends with
     * {@link StopReason#TOOL_CALLS}. The ids are the host's, issued for these calls.
     */
    record ToolCallsRequired(List<Message.ToolCallRef> calls) implements RunEvent {
        public ToolCallsRequired {
            calls = List.copyOf(calls);
        }
    }

    /**
     * A tool asks for approval of a dangerous action.
     *
     * @param approvalId     the request id (32 hex)
     * @param patternKey     the matched rule ({@code rm-recursive}), or null
     * @param allowPermanent whether {@code always} is offered
     */
    record ApprovalRequested(String approvalId, String command, String description, long timeoutSeconds,
                             String patternKey, boolean allowPermanent) implements RunEvent {
        public ApprovalRequested(String approvalId, String command, String description, long timeoutSeconds) {
            this(approvalId, command, description, timeoutSeconds, null, true);
        }
    }

    /**
     * Approvals were answered ({@code once}, {@code session}, {@code always}, {@code deny}) or one
     * timed out.
     *
     * @param approvalId the answered request (the first one when several were resolved)
     * @param by         {@code user}, {@code timeout} or {@code stop}
     * @param resolved   how many pending requests this answer resolved
     */
    record ApprovalResolved(String approvalId, String choice, String by, int resolved) implements RunEvent {
        public ApprovalResolved(String approvalId, String choice, String by) {
            this(approvalId, choice, by, 1);
        }

        /** Whether nobody answered in time. */
        public boolean timedOut() {
            return "timeout".equals(by);
        }
    }

    /** Steering input was accepted into the running turn. */
    record Steered(String text) implements RunEvent {}

    /**
     * One upstream call finished; {@code total} is the turn's usage so far. {@code route} and {@code deployment} name
     * the model route and its deployment that answered ({@code model.routes}), or are null when none is configured;
     * {@code costUsd} is what the call cost at the deployment's price (0 when it has none).
     */
    record UsageReported(Usage call, Usage total, String route, String deployment, double costUsd) implements RunEvent {
        public UsageReported(Usage call, Usage total) {
            this(call, total, null, null, 0);
        }
    }

    /**
     * The run's server stopped while it was live, and {@code node} took it up again: the agent continues from its
     * last saved step. Later events continue the same sequence.
     *
     * @param node    the node that resumed the run (its id)
     * @param step    the model calls the run had completed before it stopped (the resumed loop's next call is
     *                {@code step + 1})
     * @param resumes how many times the run has been resumed, this time included
     */
    record Resumed(String node, int step, int resumes) implements RunEvent {
        public Resumed {
            requireNonNull(node, "node");
        }
    }

    /**
     * The run ended with an answer: a final one ({@code STOP}) or a partial one (iteration limit,
     * output length, context length), then with {@code error} saying why. {@code pendingSteer} is
     * steering text that arrived after the final answer and was not applied, or null.
     */
    record Completed(String output, StopReason stopReason, String error, Usage usage, String pendingSteer)
            implements RunEvent {
        public Completed(String output, StopReason stopReason, String error, Usage usage) {
            this(output, stopReason, error, usage, null);
        }
    }

    /** The run ended with an error. {@code code} is a contract error code; {@code message} is redacted. */
    record Failed(String code, String message, StopReason stopReason, String partialOutput, Usage usage)
            implements RunEvent {}

    /** The run was stopped or its client left; {@code partialOutput} is the text produced so far. */
    record Cancelled(String reason, String partialOutput, Usage usage) implements RunEvent {}

    /** The process ended while the run was live; written at the next boot. */
    record Interrupted(String reason) implements RunEvent {}
}
