package dev.caduceus.support.sql;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.store.PluginDatabase.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Group commit for work of one kind that a single statement can do for many callers at once (a chat turn's session
 * append on PostgreSQL): what callers {@link #submit} while a batch runs is run together as the next batch, by one
 * {@link Runner} call. Under load many callers share a round trip and a commit; alone, a caller's batch is itself.
 *
 * <p>No thread waits for work: the first caller to find no batch running starts a virtual thread that runs batches
 * until the queue is empty, then ends. Callers wait for their batch. When a batch fails, each of its items runs again
 * alone, so an item only ever fails for its own reasons and the others are done; unless the database could not be
 * reached ({@link StoreException#unavailable()}), which fails them all at once.
 *
 * <p>Threading: {@link #submit} from any thread; a runner never runs two batches at once.
 *
 * @param <T> what a caller submits
 */
public final class Batcher<T> {
    /** Does the work of every item of {@code batch}, or throws and does none of it (one statement, one transaction). */
    @FunctionalInterface
    public interface Runner<T> {
        void run(List<T> batch) throws Exception;
    }

    private record Entry<T>(T item, CompletableFuture<Void> done) {}

    private final String name;
    private final int maxBatch;
    private final Runner<T> runner;
    private final ConcurrentLinkedQueue<Entry<T>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean();

    /** Batches of at most {@code maxBatch} items, run by {@code runner} on a virtual thread named {@code name}. */
    public Batcher(String name, int maxBatch, Runner<T> runner) {
        if (maxBatch < 1) throw new IllegalArgumentException("maxBatch must be >= 1");
        this.name = requireNonNull(name, "name");
        this.maxBatch = maxBatch;
        this.runner = requireNonNull(runner, "runner");
    }

    /** Queues {@code item} and waits until the batch that took it is done; rethrows the failure of its own run. */
    public void submit(T item) {
        var entry = new Entry<>(requireNonNull(item, "item"), new CompletableFuture<Void>());
        queue.add(entry);
        if (running.compareAndSet(false, true)) Thread.ofVirtual().name(name).start(this::drain);
        try {
            entry.done().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the item may still run: as with a write the caller stopped waiting for
            throw new StoreException("interrupted while waiting for " + name, e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new StoreException(name + " failed: " + e.getCause(), e.getCause());
        }
    }

    /** Items waiting for a batch (tests use it to line one up). */
    int queued() {
        return queue.size();
    }

    /**
     * Runs batches until the queue is empty. A caller that queued after the last poll and found this still running
     * (so started nothing) is seen by the check after {@code running} is cleared: its add came before its failed
     * compare-and-set, which came before the clear.
     */
    private void drain() {
        var batch = new ArrayList<Entry<T>>();
        while (true) {
            Entry<T> next;
            while (batch.size() < maxBatch && (next = queue.poll()) != null) batch.add(next);
            if (batch.isEmpty()) {
                running.set(false);
                if (queue.isEmpty() || !running.compareAndSet(false, true)) return;
                continue;
            }
            run(batch);
            batch.clear();
        }
    }

    private void run(List<Entry<T>> batch) {
        try {
            runner.run(batch.stream().map(Entry::item).toList());
            batch.forEach(e -> e.done().complete(null));
            return;
        } catch (Throwable t) {
            // alone, or the database unreachable (each alone would wait out the pool's timeout in turn): all fail with it
            if (batch.size() == 1 || t instanceof StoreException se && se.unavailable()) {
                batch.forEach(e -> e.done().completeExceptionally(t));
                return;
            }
        }
        for (var e : batch) { // the batch failed as a whole: each alone, to fail only the ones that fail on their own
            try {
                runner.run(List.of(e.item()));
                e.done().complete(null);
            } catch (Throwable t) {
                e.done().completeExceptionally(t);
            }
        }
    }
}
