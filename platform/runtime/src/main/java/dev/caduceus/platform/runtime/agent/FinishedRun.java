package dev.caduceus.platform.runtime.agent;

import dev.caduceus.platform.runtime.journal.EventLog;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunSubscription;
import java.time.Instant;

/**
 * An ephemeral run (chat, Responses) that has ended, as {@link RunService} keeps it findable for a
 * while: its id, its result and its events in memory, and nothing of its request (the input, which
 * may be megabytes of conversation: a run kept whole held it for the next thousand runs). Cancelling
 * does nothing. Immutable.
 */
record FinishedRun(String id, RunResult result, EventLog log, Instant finishedAt) implements RunHandle {

    @Override
    public RunSubscription subscribe(long afterSeq) {
        return new LogSubscription(log.pinned(id), id, afterSeq);
    }

    @Override
    public RunResult await() {
        return result;
    }

    @Override
    public void cancel(String reason) {
        // ended: nothing to cancel
    }
}
