package dev.caduceus.platform.runtime.journal;

import dev.caduceus.platform.host.store.Database;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit for the run journal: appends and status changes from every run are queued, and one
 * thread writes whatever has queued up in one database transaction, then publishes the committed
 * entries to the {@link LiveTail}. While one batch commits the next one gathers, so the cost of a
 * commit is shared by every event that arrived meanwhile and no run waits on the disk.
 *
 * <p>A batch whose commit fails is retried a few times; if it still fails the entries are published
 * anyway (a live run must not hang on a broken disk) and the failure is logged.
 *
 * <p>Threading: {@link #append}, {@link #update} and {@link #flush} may be called from any thread.
 * Lifecycle: {@link #close} commits what is queued and stops the thread.
 */
final class JournalWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JournalWriter.class);
    private static final int MAX_BATCH = 2048;
    private static final int ATTEMPTS = 3;

    private sealed interface Op {}
    private record Append(JournalEntry entry, RunRecord after) implements Op {}
    private record Update(RunRecord after) implements Op {}
    private record Checkpoint(RunStore.Step step) implements Op {}
    private record Barrier(CompletableFuture<Void> done) implements Op {}
    private record Stop() implements Op {}

    private final Database database;
    private final RunStore store;
    private final LiveTail tail;
    private final LinkedBlockingQueue<Op> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean closed;
    private final dev.caduceus.spi.metrics.Metrics.Histogram batchSize;
    private final dev.caduceus.spi.metrics.Metrics.Histogram commitLatency;

    private final RunFeed feed;
    /** Live runs with saved steps ({@code run_steps}), which their end deletes. */
    private final java.util.Set<String> stepped = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final JournalListener listener;

    JournalWriter(Database database, RunStore store, LiveTail tail, dev.caduceus.spi.metrics.Metrics metrics, RunFeed feed,
                  JournalListener listener) {
        this.feed = feed;
        this.listener = listener;
        this.batchSize = metrics.histogram("journal_commit_batch_size", "Run journal operations committed in one "
                + "transaction (group commit)", java.util.List.of(1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0,
                512.0, 1024.0, 2048.0));
        this.commitLatency = metrics.timer("journal_commit_duration", "Run journal group commit: time to write and "
                + "commit one batch");
        this.database = database;
        this.store = store;
        this.tail = tail;
        this.thread = Thread.ofPlatform().name("caduceus-journal").daemon(true).start(this::loop);
    }

    void append(JournalEntry entry, RunRecord after) {
        offer(new Append(entry, after));
    }

    void update(RunRecord after) {
        offer(new Update(after));
    }

    void step(RunStore.Step step) {
        offer(new Checkpoint(step));
    }

    /** A resumed run: its steps were saved by an earlier process, and its end deletes them. */
    void stepped(String runId) {
        stepped.add(runId);
    }

    /** Blocks until everything queued before this call is committed and published. */
    void flush() {
        if (!thread.isAlive()) return;
        var done = new CompletableFuture<Void>();
        offer(new Barrier(done));
        try {
            done.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.warn("Run journal flush did not complete: {}", e.toString());
        }
    }

    private void offer(Op op) {
        if (closed && !(op instanceof Barrier)) throw new IllegalStateException("the run journal is closed");
        queue.add(op);
    }

    private void loop() {
        var batch = new ArrayList<Op>();
        while (true) {
            try {
                batch.add(queue.take());
                queue.drainTo(batch, MAX_BATCH - 1);
            } catch (InterruptedException e) {
                return;
            }
            boolean stop = commit(batch);
            batch.clear();
            if (stop) return;
        }
    }

    /** Writes one batch and publishes it; true when the batch held the stop marker. */
    private boolean commit(List<Op> batch) {
        var entries = new ArrayList<JournalEntry>();
        var steps = new ArrayList<RunStore.Step>();
        var records = new LinkedHashMap<String, RunRecord>();
        var barriers = new ArrayList<CompletableFuture<Void>>();
        boolean stop = false;
        for (var op : batch) {
            switch (op) {
                case Append a -> {
                    entries.add(a.entry());
                    if (a.after() != null) records.put(a.after().runId(), a.after());
                }
                case Update u -> records.put(u.after().runId(), u.after());
                case Checkpoint c -> {
                    steps.add(c.step());
                    stepped.add(c.step().runId());
                }
                case Barrier b -> barriers.add(b.done());
                case Stop s -> stop = true;
            }
        }
        if (!entries.isEmpty() || !records.isEmpty() || !steps.isEmpty()) {
            long started = System.nanoTime();
            var stepsDone = new ArrayList<String>();
            for (var r : records.values()) if (r.status().isTerminal() && stepped.remove(r.runId())) stepsDone.add(r.runId());
            write(steps, entries, records, stepsDone);
            commitLatency.recordSince(started);
            batchSize.observe(batch.size());
        }
        entries.forEach(tail::publish);
        barriers.forEach(b -> b.complete(null));
        return stop;
    }

    private void write(List<RunStore.Step> steps, List<JournalEntry> entries, LinkedHashMap<String, RunRecord> records,
                       List<String> stepsDone) {
        for (int attempt = 1; ; attempt++) {
            try {
                database.write(sql -> {
                    store.write(sql, steps, entries, records.values(), stepsDone);
                    listener.committing(sql, entries);
                    if (feed != RunFeed.LOCAL) {
                        var changed = new java.util.LinkedHashSet<String>(records.keySet());
                        entries.forEach(e -> changed.add(e.runId()));
                        feed.announce(sql, changed);
                    }
                    return null;
                });
                listener.committed();
                return;
            } catch (RuntimeException e) {
                if (attempt >= ATTEMPTS) {
                    LOG.error("Run journal: could not commit {} event(s) after {} attempts; delivering them unsaved",
                            entries.size(), attempt, e);
                    return;
                }
                LOG.warn("Run journal commit failed (attempt {}), retrying: {}", attempt, e.getMessage());
                try {
                    TimeUnit.MILLISECONDS.sleep(50L * attempt);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Commits what is queued, then stops the thread. Idempotent. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        queue.add(new Stop());
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
