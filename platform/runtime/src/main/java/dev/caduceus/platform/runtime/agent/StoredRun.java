package dev.caduceus.platform.runtime.agent;

import dev.caduceus.platform.runtime.journal.EventLog;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import java.util.List;

/**
 * A durable run that is not live in this process (finished, or left by an earlier process): its
 * events come from the journal, its result from its record. Cancelling does nothing. Immutable.
 */
record StoredRun(RunRecord record, EventLog log) implements RunHandle {

    @Override
    public String id() {
        return record.runId();
    }

    @Override
    public RunSubscription subscribe(long afterSeq) {
        return new LogSubscription(log, record.runId(), afterSeq);
    }

    /** The stored outcome; a run that is still live elsewhere reads as interrupted. */
    @Override
    public RunResult await() {
        var usage = record.usage() == null ? Usage.ZERO : record.usage();
        return switch (record.status()) {
            case COMPLETED -> RunResult.completed(record.output(), usage, List.of());
            case CANCELLED -> RunResult.of(StopReason.INTERRUPTED, record.output(), usage, null, null, List.of());
            case FAILED -> new RunResult(RunStatus.FAILED, StopReason.INTERNAL_ERROR, null, usage, "agent_error",
                    record.error(), List.of());
            default -> new RunResult(RunStatus.INTERRUPTED, StopReason.INTERRUPTED, null, usage, "interrupted",
                    record.error(), List.of());
        };
    }

    @Override
    public void cancel(String reason) {
        // not live here: nothing to cancel
    }
}
