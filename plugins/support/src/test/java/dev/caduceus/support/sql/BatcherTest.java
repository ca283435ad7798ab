package dev.caduceus.support.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
        }
    }

    private static void awaitQueued(Batcher<?> batcher, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (batcher.queued() < n) {
            assertTrue(System.nanoTime() < deadline, "only " + batcher.queued() + " of " + n + " queued");
            Thread.sleep(1);
        }
    }

    @Test
    void whatArrivesWhileABatchRunsRunsTogetherInOrder() throws Exception {
        var runner = new Recording();
        var batcher = new Batcher<>("test-batch", 64, runner);
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var first = pool.submit(() -> batcher.submit("first"));
            assertTrue(runner.firstRunning.await(10, TimeUnit.SECONDS));
            var rest = new ArrayList<Future<?>>();
            for (int i = 0; i < 5; i++) {
                var item = "item" + i;
                rest.add(pool.submit(() -> batcher.submit(item)));
                awaitQueued(batcher, i + 1); // one at a time, so the queue's order is known
            }
            runner.release.countDown();
            first.get(10, TimeUnit.SECONDS);
            for (var f : rest) f.get(10, TimeUnit.SECONDS);
        }
        assertEquals(List.of(List.of("first"), List.of("item0", "item1", "item2", "item3", "item4")), runner.batches);
    }

    @Test
    void aBatchIsAtMostItsSize() throws Exception {
        var runner = new Recording();
        var batcher = new Batcher<>("test-batch", 2, runner);
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var first = pool.submit(() -> batcher.submit("first"));
            assertTrue(runner.firstRunning.await(10, TimeUnit.SECONDS));
            var rest = new ArrayList<Future<?>>();
            for (int i = 0; i < 5; i++) {
                var item = "item" + i;
                rest.add(pool.submit(() -> batcher.submit(item)));
                awaitQueued(batcher, i + 1);
            }
            runner.release.countDown();
            first.get(10, TimeUnit.SECONDS);
            for (var f : rest) f.get(10, TimeUnit.SECONDS);
        }
        assertEquals(List.of(List.of("first"), List.of("item0", "item1"), List.of("item2", "item3"), List.of("item4")),
                runner.batches);
    }

    @Test
    void aFailingItemFailsAloneAndTheOthersOfItsBatchAreDone() throws Exception {
        var runner = new Recording();
        var batcher = new Batcher<>("test-batch", 64, runner);
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var first = pool.submit(() -> batcher.submit("first"));
            assertTrue(runner.firstRunning.await(10, TimeUnit.SECONDS));
            var a = pool.submit(() -> batcher.submit("a"));
            awaitQueued(batcher, 1);
            var bad = pool.submit(() -> batcher.submit("bad"));
            awaitQueued(batcher, 2);
            var c = pool.submit(() -> batcher.submit("c"));
            awaitQueued(batcher, 3);
            runner.release.countDown();
            first.get(10, TimeUnit.SECONDS);
            a.get(10, TimeUnit.SECONDS);
            c.get(10, TimeUnit.SECONDS);
            var failure = assertThrows(java.util.concurrent.ExecutionException.class, () -> bad.get(10, TimeUnit.SECONDS));
            assertEquals("bad cannot be written", failure.getCause().getMessage());
        }
        assertEquals(List.of(List.of("first"), List.of("a", "bad", "c"), List.of("a"), List.of("bad"), List.of("c")),
                runner.batches);
    }

    @Test
    void everyItemOfManyCallersRunsExactlyOnce() throws Exception {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        var duplicates = new java.util.concurrent.atomic.AtomicInteger();
        var running = new java.util.concurrent.atomic.AtomicInteger();
        var overlaps = new java.util.concurrent.atomic.AtomicInteger();
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
