package dev.caduceus.platform.host.webhooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {
    static final Instant T0 = Instant.parse("2026-12-04T10:00:00Z");
    final Backoff backoff = new Backoff(Duration.ofSeconds(5), Duration.ofHours(1), Duration.ofHours(24));

    @Test
    void eachWaitIsBetweenHalfAndAllOfADoublingCeilingCappedAtMax() {
        var random = new Random(7);
        for (int failures = 1; failures <= 20; failures++) {
            long ceiling = Math.min(5_000L << (failures - 1), 3_600_000L);
            for (int i = 0; i < 50; i++) {
                var wait = Duration.between(T0, backoff.next(failures, T0, T0, Optional.empty(), random).orElseThrow());
                assertTrue(wait.toMillis() >= ceiling / 2 && wait.toMillis() <= ceiling, failures + ": " + wait);
            }
        }
    }

    @Test
    void retryAfterReplacesTheWaitUpToMax() {
        var random = new Random(1);
        assertEquals(T0.plusSeconds(120), backoff.next(1, T0, T0, Optional.of(Duration.ofSeconds(120)), random).orElseThrow());
        assertEquals(T0.plus(Duration.ofHours(1)),
                backoff.next(1, T0, T0, Optional.of(Duration.ofDays(2)), random).orElseThrow());
    }

    @Test
    void nothingIsScheduledPastTheRetryWindow() {
        var random = new Random(3);
        var late = T0.plus(Duration.ofHours(23)).plus(Duration.ofMinutes(59));
        assertTrue(backoff.next(30, T0, late, Optional.empty(), random).isEmpty(), "an hour's wait ends past 24 h");
        assertTrue(backoff.next(30, T0, late, Optional.of(Duration.ofSeconds(30)), random).isPresent());
    }
}
