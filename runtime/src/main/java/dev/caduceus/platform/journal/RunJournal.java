package dev.caduceus.platform.journal;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.store.Database;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The durable run journal: status rows and events of journaled runs in SQLite,
 * written by the {@link JournalWriter} (group commit) and read back from the {@link LiveTail} while
 * a run is live, from the database otherwise. Every entry a reader gets is committed.
 *
 * <p>Threading: thread-safe. Lifecycle: {@link #recover} once at boot before any run starts;
 * {@link #close} after the last run ended, before the database closes.
 */
public final class RunJournal implements EventLog, AutoCloseable {
    /** The error of a run that was live when the process ended (its status becomes {@code interrupted}). */
    public static final String INTERRUPTED_ERROR = "The server restarted before this run settled.";
    /** Entries per live run kept in memory for followers. */
    public static final int TAIL_CAPACITY = 1024;

    private final RunStore store;
    private final LiveTail tail = new LiveTail(TAIL_CAPACITY);
    private final JournalWriter writer;

    public RunJournal(Database database, ObjectMapper json) {
        this(database, json, new dev.caduceus.platform.metrics.MetricsRegistry().host());
    }

    /** @param metrics where the group commit's batch sizes and commit latency go (the host's) */
    public RunJournal(Database database, ObjectMapper json, dev.caduceus.spi.metrics.Metrics metrics) {
        this.store = new RunStore(database, json);
        this.writer = new JournalWriter(database, store, tail, metrics);
    }

    /** An idempotency key recorded for an earlier run. */
    public record RecordedKey(String fingerprint, String runId) {}

    /**
     * Marks every run left live by an earlier process {@code interrupted}, each with a final
     * interrupted event; returns their ids.
     */
    public List<String> recover(Instant now) {
        return store.interruptLiveRuns(now);
    }

    /** The run recorded under {@code key}, unless its run was last updated before {@code notBefore}. */
    public Optional<RecordedKey> findKey(String key, Instant notBefore) {
        return store.findKey(key, notBefore).map(k -> new RecordedKey(k.fingerprint(), k.runId()));
    }

    /**
     * Commits a new run's row (and its key) and starts following it. If a live key was recorded
     * meanwhile, nothing is written and that key is returned.
     */
    public Optional<RecordedKey> create(RunRecord run, String key, String fingerprint, Instant keyNotBefore) {
        var existing = store.insert(run, key, fingerprint, keyNotBefore);
        if (existing.isPresent()) return existing.map(k -> new RecordedKey(k.fingerprint(), k.runId()));
        tail.open(run.runId(), run.lastSeq());
        return Optional.empty();
    }

    @Override
    public void append(JournalEntry entry, RunRecord after) {
        writer.append(entry, after);
    }

    @Override
    public void update(RunRecord after) {
        writer.update(after);
    }

    @Override
    public void flush() {
        writer.flush();
    }

    @Override
    public EventPage read(String runId, long afterSeq, int max, Duration timeout) throws InterruptedException {
        var live = tail.read(runId, afterSeq, max, timeout);
        if (live != null) return live;
        var stored = store.events(runId, afterSeq, max);
        if (!stored.isEmpty()) return new EventPage(stored, false);
        // Nothing stored after the cursor: either the run went live in between (read the tail) or it is over.
        live = tail.read(runId, afterSeq, max, timeout);
        return live != null ? live : EventPage.END;
    }

    /** Stops following a finished run; its readers continue from the database. */
    @Override
    public void forget(String runId) {
        tail.close(runId);
    }

    public Optional<RunRecord> record(String runId) {
        return store.record(runId);
    }

    public RunQuery.Page list(RunQuery query) {
        return store.list(query);
    }

    /** Retention sweep; returns the number of runs deleted. */
    public int prune(Instant runsBefore, Instant keysBefore) {
        return store.prune(runsBefore, keysBefore);
    }

    /** Commits what is queued and stops the writer. */
    @Override
    public void close() {
        writer.close();
    }
}
