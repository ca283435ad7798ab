package dev.caduceus.spi.agent;

import java.time.Duration;
import java.util.Optional;

/**
 * Reads one run's committed events in order, from a starting sequence number, then the live tail.
 *
 * <p>Threading: confined to one reader thread. Lifecycle: close it when done; closing never affects
 * the run. After the terminal entry has been returned, {@link #next} returns empty at once.
 */
public interface RunSubscription extends AutoCloseable {

    /** The run this subscription reads. */
    String runId();

    /** The next entry, waiting at most {@code timeout}; empty on timeout or after the end. */
    Optional<JournalEntry> next(Duration timeout) throws InterruptedException;

    /** Whether the terminal entry has been returned. */
    boolean finished();

    @Override
    void close();
}
