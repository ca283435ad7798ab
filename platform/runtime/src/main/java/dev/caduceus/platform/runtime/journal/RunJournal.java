package dev.caduceus.platform.runtime.journal;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.store.Database;
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
    private final RunFeed feed;
    private final Database database;

    public RunJournal(Database database, ObjectMapper json) {
        this(database, json, new dev.caduceus.platform.host.metrics.MetricsRegistry().host());
    }

    /** @param metrics where the group commit's batch sizes and commit latency go (the host's) */
    public RunJournal(Database database, ObjectMapper json, dev.caduceus.spi.metrics.Metrics metrics) {
        this(database, json, metrics, "node_" + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 12),
                RunFeed.LOCAL);
    }

    /**
     * @param nodeId the node this process is, recorded as the owner of the runs it starts
     * @param feed   how this journal and those of other nodes on the same database wake each other
     */
    public RunJournal(Database database, ObjectMapper json, dev.caduceus.spi.metrics.Metrics metrics, String nodeId,
                      RunFeed feed) {
        this(database, json, metrics, nodeId, feed, JournalListener.NONE);
    }

    /** @param listener told of each group commit, in its transaction (the runs' webhooks) */
    public RunJournal(Database database, ObjectMapper json, dev.caduceus.spi.metrics.Metrics metrics, String nodeId,
                      RunFeed feed, JournalListener listener) {
        this.database = database;
        this.feed = feed;
        this.store = new RunStore(database, json, nodeId);
        this.writer = new JournalWriter(database, store, tail, metrics, feed, listener);
    }

    /** Where a run is: the node executing it ({@code null} for runs from before nodes were recorded), and whether it is live. */
    public record Placement(String nodeId, boolean live) {}

    /** The run's placement; empty for an unknown run. */
    public Optional<Placement> placement(String runId) {
        return store.placement(runId).map(p -> new Placement(p.nodeId(), p.live()));
    }

    /**
     * A restarted node's recovery: its own runs left live by its previous process (same node id, a
     * process known to be gone) become {@code interrupted} at once, as at a single node's restart; the
     * other nodes are told. Returns the runs interrupted.
     */
    public List<String> interruptRunsOf(String nodeId, Instant now) {
        return database.write(sql -> {
            var ids = store.interrupt(sql, "node_id = ?", now, nodeId);
            feed.announce(sql, ids);
            return ids;
        });
    }

    /**
     * The cluster's recovery: in one write, the live runs of nodes whose lease was last renewed before
     * {@code deadBefore} (epoch ms, the database's clock), of nodes without a lease row, and of no recorded
     * node become {@code interrupted} exactly as at a restart; those nodes' lease rows are deleted; the
     * other nodes are told. Returns the runs interrupted.
     */
    public List<String> interruptRunsOfDeadNodes(Instant now, long deadBefore) {
        return database.write(sql -> {
            var ids = store.interrupt(sql, "node_id IS NULL OR node_id NOT IN "
                    + "(SELECT node_id FROM cluster_nodes WHERE renewed_at >= ?)", now, deadBefore);
            sql.update("DELETE FROM cluster_nodes WHERE renewed_at < ?", deadBefore);
            feed.announce(sql, ids);
            return ids;
        });
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
        return create(run, key, fingerprint, keyNotBefore, null);
    }

    /** As {@link #create(RunRecord, String, String, Instant)}, with the webhook the run's request named (JSON), or null. */
    public Optional<RecordedKey> create(RunRecord run, String key, String fingerprint, Instant keyNotBefore,
                                        String webhookJson) {
        var existing = store.insert(run, key, fingerprint, keyNotBefore, webhookJson);
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

    /**
     * Reads from the run's live tail while this node executes it, else from the database. A run live on
     * another node is followed from the database too: when nothing is stored after the cursor, the reader
     * waits for that node's next announced commit (or its own timeout), then reads again, so it gets the
     * same gap-free, committed entries as a reader on the owning node.
     */
    @Override
    public EventPage read(String runId, long afterSeq, int max, Duration timeout) throws InterruptedException {
        var live = tail.read(runId, afterSeq, max, timeout);
        if (live != null) return live;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            var wake = feed.watch(runId); // before the read: a commit after it completes the future
            var stored = store.events(runId, afterSeq, max);
            if (!stored.isEmpty()) return new EventPage(stored, false);
            // Nothing stored after the cursor: the run went live here in between (read the tail), it is
            // live on another node (wait for its next commit), or it is over.
            long left = Math.max(0, deadline - System.nanoTime());
            live = tail.read(runId, afterSeq, max, Duration.ofNanos(left));
            if (live != null) return live;
            if (wake == null || !store.placement(runId).map(RunStore.Placement::live).orElse(false)) {
                // Over, but its last entries may have been committed after the read above, in the same
                // transaction that ended the run (RunStore.write): read once more, or they are lost.
                stored = store.events(runId, afterSeq, max);
                return stored.isEmpty() ? EventPage.END : new EventPage(stored, false);
            }
            left = deadline - System.nanoTime();
            if (left <= 0) return EventPage.TIMED_OUT;
            try {
                wake.get(left, java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                return EventPage.TIMED_OUT;
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }
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
