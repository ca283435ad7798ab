package dev.caduceus.plugin.mcp;

import java.time.Duration;

/**
 * The delay before the next attempt to connect: 1 s after the first failure, doubling up to 60 s
 * (Hermes' ceiling). Immutable.
 */
record Backoff(Duration first, Duration max) {
    static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));

    /** The delay after {@code failures} consecutive failures (at least 1). */
    Duration after(int failures) {
        int shift = Math.min(Math.max(failures, 1) - 1, 20);
        var delay = first.multipliedBy(1L << shift);
        return delay.compareTo(max) > 0 ? max : delay;
    }
}
