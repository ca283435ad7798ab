package dev.caduceus.platform.batch;

import dev.caduceus.support.json.ToolJson;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.nio.file.Path;
import java.util.LinkedHashSet;

/**
 * One invocation of {@code caduceus batch} after the flags were checked and the plugins booted:
 * works out what remains (see {@link Resume}), runs batches of prompts on virtual
 * threads, at most {@code --num_workers} at a time, records every outcome in a batch file and the
 * checkpoint under one lock, then merges and writes the statistics. Single use.
 */
final class BatchRunner {
    /** Exit statuses: all done (or discarded), fatal, usage or configuration, some prompts failed, Ctrl+C. */
    static final int OK = 0, FATAL = 1, USAGE = 2, SOME_FAILED = 3, INTERRUPTED = 130;
    /**
     * How often the checkpoint is rewritten while prompts finish (the most a crash can take back): every second, or
     * {@link #COMMIT_SHARE}× as long as writing the file took last time, if that is longer. The file has an entry per
     * batch, so a run of a million one-prompt batches writes ~300 MB each time, under the lock the workers record
     * with. Only the file's own write counts: the batch files' fsyncs before it grow with the prompts done since
     * the last commit, not with the run, and spacing them out only piled them up for the run's end.
     */
    static final Duration COMMIT_SPACING = Duration.ofSeconds(1);
    static final int COMMIT_SHARE = 20;

    private final BatchOptions options;
    private final Dataset dataset;
    private final RunFolder folder;
    private final Checkpoint checkpoint;
    private final PromptRunner prompts;
    private final String model;
    private final ObjectMapper json;
    private final PrintStream err;
    private final Progress progress;
    private final BatchLog log;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition checkpointed = lock.newCondition();
    // the checkpoint's commits (guarded by lock): prompts recorded, prompts durable, a writer busy, a write that failed
    private final Set<Path> unsyncedBatchFiles = new LinkedHashSet<>();
    private long recorded;
    private long durable;
    private boolean committing;
    /** How long the last commit took to write checkpoint.json itself (not the batch files' fsyncs before it). */
    private long checkpointWriteNanos;
    private IOException commitFailure;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final String startedAt = now();
    private final long startNanos = System.nanoTime();
    private int processed;
    private int failed;
    private int discarded;
    /** The prompt indexes to run, in order; batch {@code b} of this invocation is its slice {@code [b × size, (b+1) × size)}. */
    private final int[] remaining;
    private final int batchCount;
    private final int firstBatch;

    BatchRunner(BatchOptions options, Dataset dataset, RunFolder folder, Checkpoint checkpoint,
                int[] remaining, PromptRunner prompts, String model, ObjectMapper json, PrintStream err,
                boolean terminal, BatchLog log) {
        this.log = log;
        this.options = options;
        this.dataset = dataset;
        this.folder = folder;
        this.checkpoint = checkpoint;
        this.prompts = prompts;
        this.model = model;
        this.json = json;
        this.err = err;
        this.remaining = remaining;
        this.batchCount = (remaining.length + options.batchSize() - 1) / options.batchSize();
        this.firstBatch = checkpoint.nextBatchNum;
        int done = dataset.size() - remaining.length;
        this.progress = Progress.create(options.runName(), dataset.size(), done, err, terminal,
                options.noProgress());
    }

    static String now() {
        return LocalDateTime.now().format(PromptRunner.TIMESTAMP);
    }

    /** Runs every batch; returns the exit status. */
    int run(PrintStream out) throws IOException, InterruptedException {
        checkpoint.nextBatchNum = firstBatch + batchCount;
        checkpoint.invocations.add(new Checkpoint.Invocation(startedAt, null, 0, 0, 0));
        writeCheckpoint();
        var checkpointer = Thread.ofVirtual().name("batch-checkpoint").start(this::commitPeriodically);
        try {
            runWorkers();
        } finally {
            checkpointer.interrupt();
            checkpointer.join();
        }
        progress.finish();
        if (stopping.get()) return INTERRUPTED;
        finishInvocation();
        var merge = mergeAndWriteStatistics();
        Summary.print(out, checkpoint, merge, processed, failed, discarded, seconds(), folder);
        log.line(String.format(java.util.Locale.ROOT,
                "summary: %d processed, %d failed, %d discarded (no reasoning), %d trajectories in %d batch files, %.2fs",
                processed, failed, discarded, merge.trajectories(), merge.batchFiles(), seconds()));
        return checkpoint.failed.isEmpty() ? OK : SOME_FAILED;
    }

    private void runWorkers() throws IOException, InterruptedException {
        // --num_workers workers take the batches in order (with one worker: exactly the dataset's order;
        // a thread per batch waiting on a semaphore started them in whatever order the threads ran).
        int workers = Math.min(Math.max(1, options.numWorkers()), Math.max(1, batchCount));
        var next = new java.util.concurrent.atomic.AtomicInteger();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var futures = new ArrayList<Future<?>>();
            for (int w = 0; w < workers; w++) {
                futures.add(pool.submit(() -> {
                    try (var reader = dataset.reader()) { // each entry is read from the file as its turn comes
                        for (int b; (b = next.getAndIncrement()) < batchCount; ) {
                            int from = b * options.batchSize();
                            runBatch(firstBatch + b, from, Math.min(remaining.length, from + options.batchSize()), reader);
                        }
                    }
                    return null;
                }));
            }
            for (var f : futures) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IOException("a batch failed: " + e.getCause(), e.getCause());
                }
            }
        }
    }

    /** Ctrl+C: stop scheduling, cancel running prompts (they count as not run), write the checkpoint. */
    void stop() {
        if (!stopping.compareAndSet(false, true)) return;
        log.line("interrupted: stopping");
        prompts.stopAll();
    }

    /** Runs the prompts {@code remaining[from..to)} as batch {@code batchNum}. */
    private void runBatch(int batchNum, int from, int to, Dataset.Reader reader) throws IOException {
        int inBatch = 0, failedInBatch = 0, discardedInBatch = 0;
        for (int next = from; next < to; next++) {
            if (stopping.get()) return;
            var entry = reader.entry(remaining[next]);
            var tag = "[B" + batchNum + ":P" + entry.promptIndex() + "]";
            var prefix = tag + " " + preview(entry.prompt());
            if (options.verbose()) progress.log(prefix + " toolsets " + "starting");
            log.line(prefix + " started");
            long started = System.nanoTime();
            PromptOutcome outcome;
            try {
                outcome = prompts.run(entry, batchNum);
            } catch (InterruptedException e) {
                log.prompt(tag, "interrupted", started, null);
                return;
            }
            if (outcome instanceof PromptOutcome.Interrupted
                    || stopping.get() && outcome instanceof PromptOutcome.Failed) { // cut short by the stop
                log.prompt(tag, "interrupted", started, null);
                return;
            }
            record(outcome, batchNum, entry);
            switch (outcome) {
                case PromptOutcome.Failed f -> {
                    failedInBatch++;
                    progress.log(prefix + " failed: " + f.error());
                    log.prompt(tag, "failed", started, f.error());
                }
                case PromptOutcome.Discarded d -> {
                    discardedInBatch++;
                    log.prompt(tag, "discarded (no reasoning)", started, null);
                }
                case PromptOutcome.Success s -> log.prompt(tag, "completed", started, null);
                case PromptOutcome.Interrupted i -> { } // returned above
            }
            inBatch++;
            progress.prompt(outcome);
        }
        lock.lock();
        try {
            checkpoint.finish(batchNum); // its counters will not change: kept compactly from now on
        } finally {
            lock.unlock();
        }
        progress.batchDone(batchNum, inBatch, failedInBatch, discardedInBatch);
    }

    private String preview(String prompt) {
        var flat = prompt.replace('\n', ' ');
        return flat.length() <= options.logPrefixChars() ? flat : flat.substring(0, options.logPrefixChars()) + "…";
    }

    /**
     * Appends the line (if any) and updates the counters; returns at once. The checkpoint that names
     * this prompt is written within about a second ({@link #commitPeriodically}), after the line it points
     * to is on disk. A worker does not wait for that write: a crash loses at most the last second of
     * the checkpoint, whose prompts a resume runs again (the merge drops a trajectory recorded twice);
     * waiting for every write held each worker up by one fsync per batch file written meanwhile.
     */
    void record(PromptOutcome outcome, int batchNum, Dataset.Entry entry) throws IOException {
        if (outcome instanceof PromptOutcome.Success s) // outside the lock: a batch is one worker's at a time
            AtomicFiles.appendUnsynced(folder.batch(batchNum), s.line() + "\n");
        lock.lock();
        try {
            var stat = checkpoint.batch(batchNum);
            int index = outcome.promptIndex();
            switch (outcome) {
                case PromptOutcome.Success s -> {
                    unsyncedBatchFiles.add(folder.batch(batchNum)); // forced before the next checkpoint names it
                    checkpoint.completed.set(index);
                    checkpoint.failed.remove(index);
                    stat.processed++;
                    s.tools().byName().forEach((name, c) -> {
                        var t = stat.tools.computeIfAbsent(name, n -> new ToolStats.Counts());
                        t.count += c.count;
                        t.success += c.success;
                        t.failure += c.failure;
                    });
                    stat.assistantTurns += s.reasoning().assistantTurns();
                    stat.turnsWithReasoning += s.reasoning().withReasoning();
                    stat.turnsWithoutReasoning += s.reasoning().without();
                    processed++;
                }
                case PromptOutcome.Discarded d -> {
                    appendLine(folder.discarded(), d.line()); // batch files hold trajectories only, as in Hermes
                    checkpoint.completed.set(index);
                    checkpoint.discarded.set(index);
                    checkpoint.failed.remove(index);
                    stat.processed++;
                    stat.discarded++;
                    processed++;
                    discarded++;
                }
                case PromptOutcome.Failed f -> {
                    var before = checkpoint.failed.get(index);
                    checkpoint.failed.put(index, new Checkpoint.Failure(before == null ? 1 : before.attempts() + 1,
                            f.error(), now()));
                    stat.processed++;
                    stat.failed++;
                    processed++;
                    failed++;
                }
                case PromptOutcome.Interrupted i -> { return; }
            }
            stat.changed();
            updateInvocation(null);
            recorded++;
            if (commitFailure != null) throw new IOException("cannot write checkpoint.json: " + commitFailure.getMessage(),
                    commitFailure);
        } finally {
            lock.unlock();
        }
    }

    /** The gap before the next checkpoint write, after one that took {@code lastWrite}. */
    static Duration commitSpacing(Duration lastWrite) {
        var share = lastWrite.multipliedBy(COMMIT_SHARE);
        return share.compareTo(COMMIT_SPACING) > 0 ? share : COMMIT_SPACING;
    }

    /** The checkpointer: about once a second ({@link #commitSpacing}), a checkpoint covering what was recorded by then. */
    private void commitPeriodically() {
        var spacing = COMMIT_SPACING;
        while (true) {
            try {
                Thread.sleep(spacing);
            } catch (InterruptedException e) {
                return; // the run's end writes the last one
            }
            long target;
            lock.lock();
            try {
                target = recorded;
            } finally {
                lock.unlock();
            }
            try {
                awaitDurable(target);
            } catch (IOException e) {
                lock.lock();
                try {
                    commitFailure = e; // the next record fails the run with it
                } finally {
                    lock.unlock();
                }
                return;
            }
            lock.lock();
            try {
                spacing = commitSpacing(Duration.ofNanos(checkpointWriteNanos));
            } finally {
                lock.unlock();
            }
        }
    }

    /** Appends one line to a file all workers share (lock held); it is fsynced before the next checkpoint write. */
    private void appendLine(Path file, String line) throws IOException {
        AtomicFiles.appendUnsynced(file, line + "\n");
        unsyncedBatchFiles.add(file);
    }

    /** Blocks until the checkpoint on disk covers record number {@code mine}; one waiter writes for all. */
    private void awaitDurable(long mine) throws IOException {
        lock.lock();
        try {
            while (durable < mine) {
                if (committing) {
                    checkpointed.awaitUninterruptibly();
                    continue;
                }
                committing = true;
                long covers = recorded;
                var files = List.copyOf(unsyncedBatchFiles);
                unsyncedBatchFiles.clear();
                checkpoint.lastUpdated = now();
                Path temp;
                long writing = System.nanoTime();
                try {
                    temp = AtomicFiles.prepare(folder.checkpoint(), checkpoint::write); // a consistent state, under the lock
                } catch (IOException e) {
                    unsyncedBatchFiles.addAll(files); // the next write forces them
                    committing = false;
                    checkpointed.signalAll();
                    throw e;
                }
                writing = System.nanoTime() - writing;
                lock.unlock();
                boolean done = false;
                try {
                    for (var file : files) AtomicFiles.force(file); // the lines first, then the checkpoint naming them
                    long renaming = System.nanoTime();
                    AtomicFiles.commit(temp, folder.checkpoint());
                    writing += System.nanoTime() - renaming;
                    done = true;
                } finally {
                    lock.lock();
                    if (!done) unsyncedBatchFiles.addAll(files);
                    else checkpointWriteNanos = writing;
                    committing = false;
                    checkpointed.signalAll();
                }
                durable = Math.max(durable, covers);
            }
        } finally {
            lock.unlock();
        }
    }

    private void updateInvocation(String finishedAt) {
        var last = checkpoint.invocations.removeLast();
        checkpoint.invocations.add(new Checkpoint.Invocation(last.startedAt(), finishedAt, processed, failed, discarded));
    }

    void writeCheckpoint() throws IOException {
        lock.lock();
        try {
            while (committing) checkpointed.awaitUninterruptibly();
            for (var file : unsyncedBatchFiles) AtomicFiles.force(file);
            unsyncedBatchFiles.clear();
            checkpoint.lastUpdated = now();
            AtomicFiles.replace(folder.checkpoint(), checkpoint::write);
            durable = recorded;
        } finally {
            lock.unlock();
        }
    }

    /** After a stop: the checkpoint as it stands, with this invocation's end. */
    void writeFinalCheckpoint() {
        lock.lock();
        try {
            updateInvocation(now());
            writeCheckpoint();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            lock.unlock();
        }
    }

    private void finishInvocation() throws IOException {
        lock.lock();
        try {
            updateInvocation(now());
            writeCheckpoint();
            writeFailed();
        } finally {
            lock.unlock();
        }
    }

    private void writeFailed() throws IOException {
        var text = new StringBuilder();
        try (var reader = dataset.reader()) {
            for (var failure : checkpoint.failed.entrySet()) {
                int index = failure.getKey();
                var f = failure.getValue();
                String prompt;
                try {
                    prompt = index < dataset.size() ? reader.entry(index).prompt() : "";
                } catch (IOException e) {
                    prompt = ""; // the dataset changed: the list still names the index and the error
                }
                var o = JsonNodeFactory.instance.objectNode();
                o.put("prompt_index", index).put("prompt", prompt).put("error", f.error())
                        .put("attempts", f.attempts()).put("last_attempt", f.lastAttempt());
                text.append(ToolJson.compact(o)).append('\n');
            }
        }
        AtomicFiles.replace(folder.failed(), text.toString());
    }

    private double seconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /** Merges the batch files and write {@code statistics.json}; also used by an all-done resume. */
    RunFolder.MergeResult mergeAndWriteStatistics() throws IOException {
        Set<String> registered = new HashSet<>(prompts.registeredTools());
        var merge = folder.merge(registered, json);
        double total = 0;
        for (var inv : checkpoint.invocations) total += durationOf(inv);
        var last = checkpoint.invocations.isEmpty() ? null : checkpoint.invocations.getLast();
        var stats = Statistics.build(checkpoint, options.batchSize(), model, now(), merge, last,
                last == null ? 0 : durationOf(last), total);
        AtomicFiles.replace(folder.statistics(), ToolJson.indented(stats));
        return merge;
    }

    private static double durationOf(Checkpoint.Invocation inv) {
        try {
            if (inv.finishedAt() == null) return 0;
            var start = LocalDateTime.parse(inv.startedAt(), PromptRunner.TIMESTAMP);
            var end = LocalDateTime.parse(inv.finishedAt(), PromptRunner.TIMESTAMP);
            return Duration.between(start, end).toNanos() / 1e9;
        } catch (RuntimeException e) {
            return 0;
        }
    }

    static boolean exists(java.nio.file.Path p) {
        return Files.exists(p);
    }
}
