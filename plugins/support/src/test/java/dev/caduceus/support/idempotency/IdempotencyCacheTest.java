package dev.caduceus.support.idempotency;

import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.message.Usage;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class IdempotencyCacheTest {
    private final MutableClock clock = new MutableClock();
    private final IdempotencyCache cache = new IdempotencyCache(clock, Duration.ofSeconds(300), 2);
    private final AtomicInteger computations = new AtomicInteger();

    private RunResult compute() {
        computations.incrementAndGet();
        return RunResult.completed("r" + computations.get(), Usage.ZERO, List.of());
    }

    @Test
    void entriesExpireTtlAfterCompletion() throws Exception {
        var first = cache.resolve("k", "f", this::compute);
        clock.advance(Duration.ofSeconds(300));
        assertSame(first, cache.resolve("k", "f", this::compute));
        clock.advance(Duration.ofSeconds(1));
        assertNotEquals(first, cache.resolve("k", "f", this::compute));
        assertEquals(2, computations.get());
    }

    @Test
    void oldestEntryIsEvictedAtTheCap() throws Exception {
        cache.resolve("a", "f", this::compute);
        cache.resolve("b", "f", this::compute);
        cache.resolve("c", "f", this::compute);
        assertEquals(2, cache.size());
        cache.resolve("b", "f", this::compute);
        assertEquals(3, computations.get());
        cache.resolve("a", "f", this::compute);
        assertEquals(4, computations.get());
    }

    @Test
    void exceptionsAreNotCached() throws Exception {
        assertThrows(IllegalStateException.class, () -> cache.resolve("k", "f", () -> {
            throw new IllegalStateException("boom");
        }));
        cache.resolve("k", "f", this::compute);
        assertEquals(1, computations.get());
    }

    @Test
    void concurrentIdenticalRequestsShareOneComputation() throws Exception {
        var release = new CountDownLatch(1);
        var started = new CountDownLatch(1);
        var results = new RunResult[2];
        var owner = Thread.ofVirtual().start(() -> results[0] = resolveQuietly(() -> {
            started.countDown();
            release.await();
            return compute();
        }));
        started.await();
        var waiter = Thread.ofVirtual().start(() -> results[1] = resolveQuietly(this::compute));
        // the second caller is parked on the first one's computation (or has not got there yet: then it
        // finds the finished answer, and one computation is still the rule being checked)
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (waiter.getState() != Thread.State.WAITING && System.nanoTime() < deadline) Thread.yield();
        release.countDown();
        owner.join();
        waiter.join();
        assertEquals(1, computations.get());
        assertSame(results[0], results[1]);
    }

    @Test
    void fingerprintCoversBodyFieldsAndSessionHeadersButNotOtherFields() throws Exception {
        var json = new ObjectMapper();
        var a = json.readTree("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"model\":\"m\",\"temperature\":1}");
        var reordered = json.readTree("{\"model\":\"m\",\"messages\":[{\"content\":\"hi\",\"role\":\"user\"}],\"user\":\"u\"}");
        var fields = List.of("model", "messages", "tools");
        assertEquals(IdempotencyCache.fingerprint(a, fields, null, null), IdempotencyCache.fingerprint(reordered, fields, null, null));
        assertNotEquals(IdempotencyCache.fingerprint(a, fields, null, null), IdempotencyCache.fingerprint(a, fields, "s", null));
        assertNotEquals(IdempotencyCache.fingerprint(a, fields, null, null), IdempotencyCache.fingerprint(a, fields, null, "k"));
        var tools = json.readTree("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"model\":\"m\",\"tools\":[]}");
        assertNotEquals(IdempotencyCache.fingerprint(a, fields, null, null), IdempotencyCache.fingerprint(tools, fields, null, null));
    }

    private RunResult resolveQuietly(Callable<RunResult> compute) {
        try {
            return cache.resolve("k", "f", compute);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static final class MutableClock extends Clock {
        private volatile Instant now = Instant.parse("2026-01-15T09:00:00Z");

        void advance(Duration d) { now = now.plus(d); }

        @Override public ZoneId getZone() { return ZoneOffset.UTC; }

        @Override public Clock withZone(ZoneId zone) { return this; }

        @Override public Instant instant() { return now; }
    }
}
