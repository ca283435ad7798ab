package dev.caduceus.plugin.responses;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Wakes the readers of a response's journal in this process when a frame is appended to it, so that a
 * follower (a background stream, a replay) sends each frame as it is written instead of at its next poll.
 * Per response, a generation: a reader takes the current one before it reads the journal and waits for it to
 * complete; an append completes it and starts the next. A response nobody waits for costs nothing (its entry
 * goes with the append that completes it). Thread-safe.
 */
final class AppendSignals {
    private final Map<String, CompletableFuture<Void>> generations = new ConcurrentHashMap<>();

    /** The current generation of {@code id}: completed by the next append. */
    Object generation(String id) {
        return generations.computeIfAbsent(id, k -> new CompletableFuture<>());
    }

    /** Completes {@code id}'s generation, if anyone took it. */
    void wake(String id) {
        var current = generations.remove(id);
        if (current != null) current.complete(null);
    }

    /** Waits until {@code generation} (from {@link #generation}) completes or {@code timeout} passes. */
    void await(String id, Object generation, Duration timeout) throws InterruptedException {
        if (!(generation instanceof CompletableFuture<?> future))
            throw new IllegalArgumentException("not a generation of " + id);
        try {
            future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            generations.remove(id, future); // nobody appended: no entry left behind for a finished response
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }
}
