package dev.caduceus.platform.agent;

import java.time.Duration;
import java.util.List;

/**
 * Waits between retries of a retryable upstream failure (tools.md §2.9): one wait per retry, so the
 * list's size is the retry count. Tests pass milliseconds. Immutable.
 */
public record RetryPolicy(List<Duration> waits) {
    /** 2, 4 and 8 seconds. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(
            List.of(Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(8)));

    public RetryPolicy {
        waits = List.copyOf(waits);
    }
}
