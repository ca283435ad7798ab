package dev.caduceus.platform.agent;

import dev.caduceus.spi.agent.JournalEntry;
import java.time.Duration;
import java.util.Optional;

/**
 * Where run events are committed and read back. Today {@link InMemoryEventLog}; the durable SQLite
 * journal (architecture 3.9) replaces it behind this interface.
 *
 * <p>Threading: {@link #append} is called by each run's own thread, in {@code seq} order; readers
 * call {@link #next} from any thread, concurrently.
 */
public interface EventLog {

    /** Commits one entry; its {@code seq} is the run's previous one plus 1. Wakes waiting readers. */
    void append(JournalEntry entry);

    /**
     * The entry with {@code seq == afterSeq + 1} of {@code runId}, waiting at most {@code timeout}
     * for it to be committed; empty on timeout or for an unknown run.
     */
    Optional<JournalEntry> next(String runId, long afterSeq, Duration timeout) throws InterruptedException;

    /** Drops a finished run's entries (retention). */
    void forget(String runId);
}
