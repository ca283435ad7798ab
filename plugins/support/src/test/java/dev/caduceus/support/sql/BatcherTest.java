package dev.caduceus.support.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.store.PluginDatabase.StoreException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link Batcher}: what arrives while a batch runs goes together, and a failing item fails alone. */
class BatcherTest {

    /** A runner whose first batch waits for {@code release}, recording every batch it ran. */
    private static final class Recording implements Batcher.Runner<String> {
        final List<List<String>> batches = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch firstRunning = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void run(List<String> batch) throws Exception {
            batches.add(List.copyOf(batch));
            if (batch.contains("first")) {
                firstRunning.countDown();
                assertTrue(release.await(10, TimeUnit.SECONDS));
            }
            if (batch.contains("bad")) throw new IllegalStateException("bad cannot be written");
            if (batch.contains("down")) throw new StoreException("database down", null, true);
        }
    }

    private static void awaitQueued(Batcher<?> batcher, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (batcher.queued() < n) {
            assertTrue(System.nanoTime() < deadline, "only " + batcher.queued() + " of " + n + " queued");
            Thread.sleep(1);
        }
    }

    /**
     * Submits "first", waits until its batch runs, queues {@code items} one at a time (so the queue's order is theirs),
     * lets the first batch finish and waits for every item; returns the failure of each item that failed.
     */
    private static Map<String, Throwable> submitBehindFirst(Batcher<String> batcher, Recording runner, String... items)
            throws Exception {
        var failures = new LinkedHashMap<String, Throwable>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var first = pool.submit(() -> batcher.submit("first"));
            assertTrue(runner.firstRunning.await(10, TimeUnit.SECONDS));
            var rest = new LinkedHashMap<String, Future<?>>();
            for (var item : items) {
                rest.put(item, pool.submit(() -> batcher.submit(item)));
                awaitQueued(batcher, rest.size());
            }
            runner.release.countDown();
            first.get(10, TimeUnit.SECONDS);
            for (var e : rest.entrySet()) {
                try {
                    e.getValue().get(10, TimeUnit.SECONDS);
                } catch (ExecutionException failed) {
                    failures.put(e.getKey(), failed.getCause());
                }
            }
        }
        return failures;
    }

    @Test
    void whatArrivesWhileABatchRunsRunsTogetherInOrder() throws Exception {
        var runner = new Recording();
        assertEquals(Map.of(), submitBehindFirst(new Batcher<>("test-batch", 64, runner), runner,
                "item0", "item1", "item2", "item3", "item4"));
        assertEquals(List.of(List.of("first"), List.of("item0", "item1", "item2", "item3", "item4")), runner.batches);
    }

    @Test
    void aBatchIsAtMostItsSize() throws Exception {
        var runner = new Recording();
        assertEquals(Map.of(), submitBehindFirst(new Batcher<>("test-batch", 2, runner), runner,
                "item0", "item1", "item2", "item3", "item4"));
        assertEquals(List.of(List.of("first"), List.of("item0", "item1"), List.of("item2", "item3"), List.of("item4")),
                runner.batches);
    }

    @Test
    void aFailingItemFailsAloneAndTheOthersOfItsBatchAreDone() throws Exception {
        var runner = new Recording();
        var failures = submitBehindFirst(new Batcher<>("test-batch", 64, runner), runner, "a", "bad", "c");
        assertEquals(Set.of("bad"), failures.keySet());
        assertEquals("bad cannot be written", failures.get("bad").getMessage());
        assertEquals(List.of(List.of("first"), List.of("a", "bad", "c"), List.of("a"), List.of("bad"), List.of("c")),
                runner.batches);
    }

    @Test
    void aBatchTheDatabaseCouldNotTakeFailsAsAWholeWithoutRunningItsItemsAlone() throws Exception {
        var runner = new Recording();
        var failures = submitBehindFirst(new Batcher<>("test-batch", 64, runner), runner, "a", "down", "c");
        assertEquals(Set.of("a", "down", "c"), failures.keySet());
        failures.values().forEach(t -> assertEquals("database down", t.getMessage()));
        assertEquals(List.of(List.of("first"), List.of("a", "down", "c")), runner.batches);
    }

    @Test
    void everyItemOfManyCallersRunsExactlyOnce() throws Exception {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        var duplicates = new AtomicInteger();
        var running = new AtomicInteger();
        var overlaps = new AtomicInteger();
        var batcher = new Batcher<String>("test-batch", 16, batch -> {
            if (running.incrementAndGet() > 1) overlaps.incrementAndGet();
            for (var item : batch) if (!seen.add(item)) duplicates.incrementAndGet();
            running.decrementAndGet();
        });
        int callers = 500;
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var done = new ArrayList<Future<?>>();
            for (int i = 0; i < callers; i++) {
                var item = "item" + i;
                done.add(pool.submit(() -> batcher.submit(item)));
            }
            for (var f : done) f.get(30, TimeUnit.SECONDS);
        }
        assertEquals(callers, seen.size());
        assertEquals(0, duplicates.get());
        assertEquals(0, overlaps.get(), "never two batches at once");
        assertEquals(0, batcher.queued());
    }
}
