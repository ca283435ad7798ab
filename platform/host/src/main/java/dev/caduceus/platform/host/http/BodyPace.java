package dev.caduceus.platform.host.http;

import java.time.Duration;

/**
 * The pace a request body must keep ({@code server.body_min_rate}, {@code server.body_grace_seconds}): a
 * deadline that starts {@code grace} after the body's first read and moves on by {@code bytes / minRate}
 * seconds for each chunk that arrives, never more than {@code grace} ahead of now. A body that stops for
 * longer than the credit it earned, or that trickles below {@code minRate} on average, misses it and is
 * answered 408 with its connection closed; an upload at or above the rate never is. Immutable.
 *
 * @param minBytesPerSecond the lowest average rate, in bytes per second; 0 turns the pace off
 * @param grace             how long a body may stall, and the most credit a fast start earns
 */
public record BodyPace(long minBytesPerSecond, Duration grace) {
    /** No pace: a body may take as long as the connection's idle timeout allows between its bytes. */
    public static final BodyPace OFF = new BodyPace(0, Duration.ofSeconds(1));

    public BodyPace {
        if (minBytesPerSecond < 0) throw new IllegalArgumentException("minBytesPerSecond must be >= 0");
        java.util.Objects.requireNonNull(grace, "grace");
        if (grace.isNegative() || grace.isZero()) throw new IllegalArgumentException("grace must be > 0");
    }

    boolean off() {
        return minBytesPerSecond == 0;
    }

    /** One body's deadline, in {@link System#nanoTime} terms. Not thread-safe: the reading thread's. */
    Clock start(long nowNanos) {
        return new Clock(nowNanos + grace.toNanos());
    }

    /** The deadline of one body as it arrives. */
    final class Clock {
        private long deadline;

        private Clock(long deadline) {
            this.deadline = deadline;
        }

        /** {@code bytes} arrived at {@code nowNanos}: the deadline moves on by their worth, up to grace ahead. */
        void arrived(long bytes, long nowNanos) {
            long worth = bytes >= Long.MAX_VALUE / 1_000_000_000L ? Long.MAX_VALUE
                    : bytes * 1_000_000_000L / minBytesPerSecond;
            deadline = Math.min(deadline + worth, nowNanos + grace.toNanos());
        }

        /** Nanoseconds left before the deadline at {@code nowNanos}; zero or less: missed. */
        long remaining(long nowNanos) {
            return deadline - nowNanos;
        }
    }
}
