package dev.caduceus.platform.agent;

import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunSubscription;
import java.time.Duration;
import java.util.Optional;

/** A {@link RunSubscription} reading an {@link EventLog} from a cursor. Confined to one reader thread. */
final class LogSubscription implements RunSubscription {
    private final EventLog log;
    private final String runId;
    private long cursor;
    private boolean finished;
    private boolean closed;

    LogSubscription(EventLog log, String runId, long afterSeq) {
        if (afterSeq < 0) throw new IllegalArgumentException("afterSeq must be >= 0");
        this.log = log;
        this.runId = runId;
        this.cursor = afterSeq;
    }

    @Override
    public String runId() {
        return runId;
    }

    @Override
    public Optional<JournalEntry> next(Duration timeout) throws InterruptedException {
        if (finished || closed) return Optional.empty();
        var entry = log.next(runId, cursor, timeout);
        entry.ifPresent(e -> {
            cursor = e.seq();
            finished = e.event().isTerminal();
        });
        return entry;
    }

    @Override
    public boolean finished() {
        return finished;
    }

    @Override
    public void close() {
        closed = true;
    }
}
