package dev.caduceus.spi.agent;

import dev.caduceus.spi.message.Usage;
import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * The status record of a durable run, as committed to the journal. Immutable.
 *
 * @param model        the model string the caller asked for (echoed), or the configured one
 * @param origin       what started the run on the owner's behalf ({@link RunRequest#origin()}), or null
 * @param lastSeq      sequence number of the latest committed event, 0 before the first
 * @param lastEvent    logical name of the latest change: an event type as stored in the journal
 *                     ({@code text_delta}, {@code tool_call_started}, {@code completed}, …) or
 *                     {@code stopping}; null before the first
 * @param output       final answer when completed, else null
 * @param usage        token usage when completed, else null
 * @param error        redacted error text when failed or interrupted, else null
 * @param pendingSteer steering text accepted after the final answer, else null
 * @param approval     the oldest pending approval request while waiting, else null
 * @param owner        the key the run belongs to ({@link RunRequest#owner()})
 * @param toolCalls    the caller's own tool calls the run waits for ({@code requires_action}), else empty
 * @param resumed      how often the run was resumed after its server stopped, and the last time, or null when never
 */
public record RunRecord(String runId, RunStatus status, Instant createdAt, Instant updatedAt, String sessionId,
                        String model, String origin, long lastSeq, String lastEvent, String output, Usage usage,
                        String error, String pendingSteer, RunEvent.ApprovalRequested approval, String owner,
                        java.util.List<dev.caduceus.spi.message.Message.ToolCallRef> toolCalls, Resumed resumed) {
    /**
     * The resumptions of a run.
     *
     * @param count  how many times it was resumed
     * @param lastAt when it was resumed last
     * @param node   the node that resumed it last
     */
    public record Resumed(int count, Instant lastAt, String node) {
        public Resumed {
            requireNonNull(lastAt, "lastAt");
            requireNonNull(node, "node");
        }
    }

    /** A record of a run never resumed. */
    public RunRecord(String runId, RunStatus status, Instant createdAt, Instant updatedAt, String sessionId,
                     String model, String origin, long lastSeq, String lastEvent, String output, Usage usage,
                     String error, String pendingSteer, RunEvent.ApprovalRequested approval, String owner,
                     java.util.List<dev.caduceus.spi.message.Message.ToolCallRef> toolCalls) {
        this(runId, status, createdAt, updatedAt, sessionId, model, origin, lastSeq, lastEvent, output, usage, error,
                pendingSteer, approval, owner, toolCalls, null);
    }

    /** A record without pending tool calls. */
    public RunRecord(String runId, RunStatus status, Instant createdAt, Instant updatedAt, String sessionId,
                     String model, String origin, long lastSeq, String lastEvent, String output, Usage usage,
                     String error, String pendingSteer, RunEvent.ApprovalRequested approval, String owner) {
        this(runId, status, createdAt, updatedAt, sessionId, model, origin, lastSeq, lastEvent, output, usage, error,
                pendingSteer, approval, owner, java.util.List.of());
    }

    public RunRecord {
        toolCalls = toolCalls == null ? java.util.List.of() : java.util.List.copyOf(toolCalls);
        requireNonNull(owner, "owner");
        requireNonNull(runId, "runId");
        requireNonNull(status, "status");
        requireNonNull(createdAt, "createdAt");
        requireNonNull(updatedAt, "updatedAt");
    }
}
