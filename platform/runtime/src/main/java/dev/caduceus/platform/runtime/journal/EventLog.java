package dev.caduceus.platform.runtime.journal;

import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunRecord;
import java.time.Duration;

/**
 * Where a run's events are committed and read back: {@link InMemoryEventLog} for ephemeral runs
 * (chat, Responses), {@link RunJournal} for durable ones (runs API, jobs).
 *
 * <p>Threading: {@link #append} and {@link #update} are called by the owner of a run under its
 * lock, in {@code seq} order; readers call {@link #read} from any thread, concurrently.
 */
public interface EventLog {

    /** Starts a run's log before its first event, so readers wait for events instead of seeing an unknown run. */
    default void open(String runId) {}

    /**
     * Appends one entry whose {@code seq} is the run's previous one plus 1, with the run's status
     * record after it ({@code null} for ephemeral runs). Readers see it once it is committed.
     */
    void append(JournalEntry entry, RunRecord after);

    /** Records a status change that has no event ({@code running}, {@code stopping}); no-op in memory. */
    default void update(RunRecord after) {}

    /** Blocks until everything appended or updated so far for any run is committed and published. */
    default void flush() {}

    /**
     * Up to {@code max} committed entries of {@code runId} with {@code seq > afterSeq}, waiting at
     * most {@code timeout} for the first one.
     */
    EventPage read(String runId, long afterSeq, int max, Duration timeout) throws InterruptedException;

    /**
     * A view of this log for one reader of {@code runId} that keeps serving the run's entries to it
     * after {@link #forget}, so a log can drop a finished run while a reader is still draining it.
     * The default is this log itself (the journal keeps what it forgets in the database).
     */
    default EventLog pinned(String runId) {
        return this;
    }

    /** Marks a run's log as complete: once its terminal entry is committed, readers at the end get {@link EventPage#END}. */
    void forget(String runId);
}
