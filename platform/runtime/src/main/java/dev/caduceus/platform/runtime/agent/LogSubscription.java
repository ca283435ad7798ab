package dev.caduceus.platform.runtime.agent;

import dev.caduceus.platform.runtime.journal.EventLog;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunSubscription;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;

/**
 * A {@link RunSubscription} reading an {@link EventLog} from a cursor, a page at a time (a reader
 * catching up from the database reads {@value #PAGE} entries per query). Confined to one reader
 * thread.
 */
final class LogSubscription implements RunSubscription {
    static final int PAGE = 256;

    private final EventLog log;
    private final String runId;
    private final ArrayDeque<JournalEntry> buffered = new ArrayDeque<>();
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
        if (buffered.isEmpty()) {
            var page = log.read(runId, cursor, PAGE, timeout);
            if (page.entries().isEmpty()) {
                finished = page.end();
                return Optional.empty();
            }
            buffered.addAll(page.entries());
        }
        var entry = buffered.poll();
        cursor = entry.seq();
        finished = entry.event().isTerminal();
        return Optional.of(entry);
    }

    @Override
    public boolean finished() {
        return finished;
    }

    @Override
    public void close() {
        closed = true;
        buffered.clear();
    }
}
