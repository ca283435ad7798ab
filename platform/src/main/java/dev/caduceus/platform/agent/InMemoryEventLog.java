package dev.caduceus.platform.agent;

import dev.caduceus.spi.agent.JournalEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An {@link EventLog} in memory: one list per run with a lock and a condition, so readers block
 * without polling until the entry they wait for is appended. Entries live until {@link #forget}
 * ({@link RunService} keeps the last {@value RunService#RETAINED_FINISHED_RUNS} finished runs).
 * Nothing survives a restart. Thread-safe.
 */
public final class InMemoryEventLog implements EventLog {
    private final Map<String, RunEntries> runs = new ConcurrentHashMap<>();

    @Override
    public void append(JournalEntry entry) {
        runs.computeIfAbsent(entry.runId(), id -> new RunEntries()).add(entry);
    }

    @Override
    public Optional<JournalEntry> next(String runId, long afterSeq, Duration timeout) throws InterruptedException {
        var entries = runs.get(runId);
        return entries == null ? Optional.empty() : entries.await(afterSeq, timeout);
    }

    @Override
    public void forget(String runId) {
        runs.remove(runId);
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

        Optional<JournalEntry> await(long afterSeq, Duration timeout) throws InterruptedException {
            long nanos = timeout.toNanos();
            lock.lock();
            try {
                while (entries.size() <= afterSeq) {
                    if (nanos <= 0) return Optional.empty();
                    nanos = appended.awaitNanos(nanos);
                }
                return Optional.of(entries.get((int) afterSeq));
            } finally {
                lock.unlock();
            }
        }
    }
}
