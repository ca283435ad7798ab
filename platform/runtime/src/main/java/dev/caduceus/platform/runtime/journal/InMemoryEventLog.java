package dev.caduceus.platform.runtime.journal;

import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An {@link EventLog} in memory, for ephemeral runs: one list per run with a lock and a condition,
 * so readers block without polling until the entry they wait for is appended. Entries live until
 * {@link #forget} (the run service keeps the last finished runs for a minute); a reader that
 * subscribed before keeps reading them ({@link #pinned}). Nothing survives a restart.
 * Thread-safe.
 */
public final class InMemoryEventLog implements EventLog {
    private final Map<String, RunEntries> runs = new ConcurrentHashMap<>();

    @Override
    public void open(String runId) {
        runs.computeIfAbsent(runId, id -> new RunEntries());
    }

    @Override
    public void append(JournalEntry entry, RunRecord after) {
        runs.computeIfAbsent(entry.runId(), id -> new RunEntries()).add(entry);
    }

    @Override
    public EventPage read(String runId, long afterSeq, int max, Duration timeout) throws InterruptedException {
        var entries = runs.get(runId);
        return entries == null ? EventPage.END : entries.await(afterSeq, max, timeout);
    }

    @Override
    public void forget(String runId) {
        runs.remove(runId);
    }

    /** Binds the reader to the run's entries themselves: forgetting the run frees them once its readers let go. */
    @Override
    public EventLog pinned(String runId) {
        var entries = runs.get(runId);
        if (entries == null) return this;
        return new EventLog() {
            @Override
            public void append(JournalEntry entry, RunRecord after) {
                throw new UnsupportedOperationException("a pinned view is read-only");
            }

            @Override
            public EventPage read(String id, long afterSeq, int max, Duration timeout) throws InterruptedException {
                return id.equals(runId) ? entries.await(afterSeq, max, timeout) : InMemoryEventLog.this.read(id, afterSeq, max, timeout);
            }

            @Override
            public void forget(String id) {
                InMemoryEventLog.this.forget(id);
            }
        };
    }

    /** One run's entries; index {@code i} holds {@code seq == i + 1}. */
    private static final class RunEntries {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition appended = lock.newCondition();
        private final List<JournalEntry> entries = new ArrayList<>();

        void add(JournalEntry entry) {
            lock.lock();
            try {
                if (entry.seq() != entries.size() + 1)
                    throw new IllegalStateException("seq " + entry.seq() + " after " + entries.size() + " for " + entry.runId());
                entries.add(entry);
                appended.signalAll();
            } finally {
                lock.unlock();
            }
        }

        EventPage await(long afterSeq, int max, Duration timeout) throws InterruptedException {
            long nanos = timeout.toNanos();
            lock.lock();
            try {
                while (entries.size() <= afterSeq) {
                    if (!entries.isEmpty() && entries.getLast().event().isTerminal()) return EventPage.END;
                    if (nanos <= 0) return EventPage.TIMED_OUT;
                    nanos = appended.awaitNanos(nanos);
                }
                int from = (int) afterSeq;
                return new EventPage(List.copyOf(entries.subList(from, Math.min(entries.size(), from + max))), false);
            } finally {
                lock.unlock();
            }
        }
    }
}
