package dev.caduceus.platform.host.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class KeyRateLimiterTest {
    final AtomicLong now = new AtomicLong(1_000_000_000L);
    final KeyRateLimiter limiter = new KeyRateLimiter(now::get);

    @Test
    void aMinutesWorthBurstsThenOnePerIntervalWithTheWaitSaid() {
        for (int i = 0; i < 3; i++) assertEquals(0, limiter.acquire("ci", 3));
        long wait = limiter.acquire("ci", 3);
        assertEquals(20, wait, "3 per minute: one every 20 s");
        now.addAndGet(20_000_000_000L);
        assertEquals(0, limiter.acquire("ci", 3));
        assertTrue(limiter.acquire("ci", 3) > 0);
    }

    @Test
    void keysHaveTheirOwnBucketsAndNoLimitMeansNone() {
        assertEquals(0, limiter.acquire("a", 1));
        assertTrue(limiter.acquire("a", 1) > 0);
        assertEquals(0, limiter.acquire("b", 1));
        for (int i = 0; i < 1000; i++) assertEquals(0, limiter.acquire("admin", 0));
    }
}
