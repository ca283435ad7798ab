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
    private final ObjectMapper json;

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
        this.json = json;
        this.feed = feed;
        this.store = new RunStore(database, json, nodeId, feed != RunFeed.LOCAL);
        this.writer = new JournalWriter(database, store, tail, metrics, feed, listener);
    }

    /** The node this process is: the owner of the runs it starts or resumes. */
    public String nodeId() {
        return store.nodeId();
    }

    /** Where a run is: the node executing it ({@code null} for runs from before nodes were recorded), and whether it is live. */
    public record Placement(String nodeId, boolean live) {}

    /** The run's placement; empty for an unknown run. */
    public Optional<Placement> placement(String runId) {
        return store.placement(runId).map(p -> new Placement(p.nodeId(), p.live()));
    }

    /**
     * How the live runs of a stopped process are taken over ({@code runs.resume}, {@code runs.max_resumes},
     * {@code runs.resume_window}): resumed, or ended as interrupted.
     */
    public record ResumePolicy(boolean enabled, int maxResumes, Duration window) {
        /** Never resume: every run of a stopped process is interrupted, as before runs could resume. */
        public static final ResumePolicy OFF = new ResumePolicy(false, 0, Duration.ZERO);
    }

    /**
     * What a takeover did with the live runs of a stopped process: the runs this node now executes again, and those it
     * ended ({@code interrupted}: not resumable or too old; {@code failed}: resumed too often; {@code cancelled}: they
     * were being stopped).
     */
    public record TakeOver(List<String> resumed, List<String> interrupted, List<String> failed, List<String> cancelled) {
        /** The runs it ended. */
        public List<String> ended() {
            var all = new java.util.ArrayList<String>(interrupted);
            all.addAll(failed);
            all.addAll(cancelled);
            return all;
        }
    }

    /** A run this node claimed, as its previous process left it: its record, its request and what it had saved. */
    public record Saved(RunRecord record, dev.caduceus.spi.agent.RunRequest request,
                        dev.caduceus.spi.agent.RunContext.Resumption resumption, boolean interactive,
                        List<String> pendingSteering) {
        public Saved {
            pendingSteering = List.copyOf(pendingSteering);
        }
    }

    /**
     * A restarted node's recovery: its own runs left live by its previous process (same node id, a
     * process known to be gone) are taken over at once ({@link #takeOver}), as at a single node's restart; the
     * other nodes are told.
     */
    public TakeOver takeOverRunsOf(String nodeId, Instant now, ResumePolicy policy) {
        return database.write(sql -> {
            var done = store.takeOver(sql, "node_id = ?", now, policy, Integer.MAX_VALUE, nodeId);
            feed.announce(sql, done.ended());
            return done;
        });
    }

    /**
     * The cluster's recovery: in one write, the live runs of nodes whose lease was last renewed before
     * {@code deadBefore} (epoch ms, the database's clock), of nodes without a lease row, and of no recorded
     * node are taken over as at a restart, this node resuming at most {@code share} of them (the rest stay for the
     * other nodes' sweeps, so the runs spread over the nodes alive); those nodes' lease rows are deleted; the other
     * nodes are told.
     */
    public TakeOver takeOverRunsOfDeadNodes(Instant now, long deadBefore, ResumePolicy policy, int share) {
        return database.write(sql -> {
            var done = store.takeOver(sql, "node_id IS NULL OR node_id NOT IN "
                    + "(SELECT node_id FROM cluster_nodes WHERE renewed_at >= ?)", now, policy, share, deadBefore);
            sql.update("DELETE FROM cluster_nodes WHERE renewed_at < ?", deadBefore);
            feed.announce(sql, done.ended());
            return done;
        });
    }

    /** An idempotency key recorded for an earlier run. */
    public record RecordedKey(String fingerprint, String runId) {}

    /**
     * Boot recovery of a single node: every run an earlier process left live is taken over ({@link TakeOver}): resumed
     * by this process when {@code policy} allows, else ended.
     */
    public TakeOver recover(Instant now, ResumePolicy policy) {
        return database.write(sql -> store.takeOver(sql, "", now, policy, Integer.MAX_VALUE));
    }

    /** What a claimed run had saved ({@link #takeOverRunsOf} and the others' {@code resumed}); empty if it is gone. */
    public Optional<Saved> saved(String runId) {
        return store.saved(runId);
    }

    /** Follows a claimed run again from its last committed event, before its resumed process appends the next. */
    public void reopen(String runId, long lastSeq) {
        writer.stepped(runId);
        tail.open(runId, lastSeq);
    }

    /**
     * Saves one message of a resumable run ({@code run_steps}) in the next group commit, after the entries appended
     * before it; {@code index} is its place among the run's steps, from 1 (the run counts them).
     */
    public void checkpoint(String runId, int index, dev.caduceus.spi.message.Message message, int modelCalls,
                           dev.caduceus.spi.message.Usage usage) {
        writer.step(new RunStore.Step(runId, index, message, modelCalls, usage));
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
        return create(run, key, fingerprint, keyNotBefore, webhookJson, null);
    }

    /**
     * As {@link #create(RunRecord, String, String, Instant, String)}, with the run's request kept so that another
     * process can resume the run ({@code request}), or null for a run that is not resumed.
     */
    public Optional<RecordedKey> create(RunRecord run, String key, String fingerprint, Instant keyNotBefore,
                                        String webhookJson, dev.caduceus.spi.agent.RunRequest request) {
        return create(run, key, fingerprint, keyNotBefore, webhookJson, request, true);
    }

    /** As above, for a run that may wait on people and its caller ({@code interactive}) or not. */
    public Optional<RecordedKey> create(RunRecord run, String key, String fingerprint, Instant keyNotBefore,
                                        String webhookJson, dev.caduceus.spi.agent.RunRequest request, boolean interactive) {
        var existing = store.insert(run, key, fingerprint, keyNotBefore, webhookJson,
                request == null ? null : StoredRequest.write(json, request, interactive));
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
