package dev.caduceus.plugin.runs;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Holds the event streams of a run that have sent their last frame until none has done so for {@link #QUIET}, then
 * lets them all close. A run's end wakes all its subscribers at once, and a stream that closed right after its last
 * frame (the response's end, the request's completion) took the carrier threads from the streams still waiting to
 * send theirs: at 10,000 subscribers the last frame's p50 was 3 to 8 times an ordinary frame's (bench/README.md,
 * issue 41). Waiting here costs a stream a map lookup and a park, with one timer per run. Thread-safe.
 */
final class ClosingGate {
    /** How long no stream of the run may have arrived before they are let through. */
    static final Duration QUIET = Duration.ofMillis(20);

    private static final class Gate {
        final CompletableFuture<Void> open = new CompletableFuture<>();
        volatile long lastArrival = System.nanoTime();
    }

    private final Map<String, Gate> gates = new ConcurrentHashMap<>();

    /** Waits until no stream of {@code runId} has arrived here for {@link #QUIET}. */
    void pass(String runId) throws InterruptedException {
        var gate = gates.computeIfAbsent(runId, id -> {
            var g = new Gate();
            openWhenQuiet(id, g, QUIET.toNanos());
            return g;
        });
        gate.lastArrival = System.nanoTime();
        try {
            gate.open.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e); // never completed exceptionally
        }
    }

    private void openWhenQuiet(String runId, Gate gate, long delayNanos) {
        CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS).execute(() -> {
            long quietFor = System.nanoTime() - gate.lastArrival;
            if (quietFor < QUIET.toNanos()) {
                openWhenQuiet(runId, gate, QUIET.toNanos() - quietFor);
                return;
            }
            gates.remove(runId, gate); // a stream arriving after this waits at a new gate of its own
            gate.open.complete(null);
        });
    }
}
