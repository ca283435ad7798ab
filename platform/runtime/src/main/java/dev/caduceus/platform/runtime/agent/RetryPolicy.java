package dev.caduceus.platform.runtime.agent;

import java.time.Duration;
import java.util.List;

/**
 * Waits between retries of a retryable upstream failure (by default 2, 4 and 8 s, or the upstream's {@code Retry-After}): one wait per retry, so the
 * list's size is the retry count. Tests pass milliseconds. Immutable.
 */
public record RetryPolicy(List<Duration> waits) {
    /** 2, 4 and 8 seconds. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(
            List.of(Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(8)));

    /** The upstream may ask for at most this long a wait; longer Retry-After values are capped. */
    static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(120);

    public RetryPolicy {
        waits = List.copyOf(waits);
    }

    /** The wait before retry {@code attempt} (from 0): the upstream's Retry-After (≤ 120 s), else the policy's. */
    Duration wait(int attempt, java.util.Optional<Duration> retryAfter) {
        return retryAfter.map(d -> d.compareTo(MAX_RETRY_AFTER) > 0 ? MAX_RETRY_AFTER : d).orElse(waits.get(attempt));
    }
}
