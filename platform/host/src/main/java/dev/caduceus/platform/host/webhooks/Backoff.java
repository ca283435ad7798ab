package dev.caduceus.platform.host.webhooks;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * When a failed delivery is tried again ({@code webhooks.retry.*}): after {@code initial}, then twice as long
 * each time, never longer than {@code max}, each wait drawn between half and all of it (jitter, so that the
 * deliveries a receiver's outage failed together do not all come back at once); a receiver's
 * {@code Retry-After} replaces the wait (up to {@code max}). Nothing after {@code retryFor} from the first
 * attempt: the delivery has failed. Immutable.
 */
public record Backoff(Duration initial, Duration max, Duration retryFor) {
    public Backoff {
        if (initial.isNegative() || initial.isZero()) throw new IllegalArgumentException("initial must be > 0");
        if (max.compareTo(initial) < 0) throw new IllegalArgumentException("max must be >= initial");
        if (retryFor.isNegative()) throw new IllegalArgumentException("retryFor must be >= 0");
    }

    /**
     * When to try again after {@code failures} failed attempts (1 after the first), the first made at
     * {@code first}; empty when that would be past {@code retryFor}.
     */
    public Optional<Instant> next(int failures, Instant first, Instant now, Optional<Duration> retryAfter,
                                  RandomGenerator random) {
        Duration wait;
        if (retryAfter.isPresent()) {
            wait = retryAfter.get().compareTo(max) > 0 ? max : retryAfter.get();
        } else {
            long ceiling = initial.toMillis();
            for (int i = 1; i < failures && ceiling < max.toMillis(); i++) ceiling *= 2;
            ceiling = Math.min(ceiling, max.toMillis());
            long floor = ceiling / 2;
            wait = Duration.ofMillis(floor + (ceiling > floor ? random.nextLong(ceiling - floor + 1) : 0));
        }
        var at = now.plus(wait);
        return at.isAfter(first.plus(retryFor)) ? Optional.empty() : Optional.of(at);
    }
}
