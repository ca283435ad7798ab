package dev.caduceus.plugin.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The streams of a run that sent their last frame close together, once none has arrived for a quiet spell. */
class ClosingGateTest {
    @Test
    void streamsOfOneRunLeaveOnlyAfterTheLastOneArrivedAndAQuietSpellPassed() throws Exception {
        var gate = new ClosingGate();
        var lastArrival = new AtomicLong();
        var start = new CountDownLatch(1);
        var released = new ArrayList<CompletableFuture<Long>>();
        for (int i = 0; i < 50; i++) {
            var f = new CompletableFuture<Long>();
            released.add(f);
            Thread.ofVirtual().start(() -> {
                try {
                    start.await();
                    lastArrival.accumulateAndGet(System.nanoTime(), Math::max);
                    gate.pass("run_1");
                    f.complete(System.nanoTime());
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
        }
        start.countDown();
        for (var f : released) {
            long at = f.get(30, TimeUnit.SECONDS);
            assertTrue(at - lastArrival.get() >= ClosingGate.QUIET.toNanos(),
                    "released " + TimeUnit.NANOSECONDS.toMicros(at - lastArrival.get()) + " µs after the last arrival");
        }
    }

    @Test
    void aStreamArrivingAfterTheGateOpenedWaitsAtAGateOfItsOwnAndRunsDoNotShareGates() throws Exception {
        var gate = new ClosingGate();
        gate.pass("run_1");
        long before = System.nanoTime();
        gate.pass("run_1"); // the first gate opened and was removed: this one waits for its own quiet spell
        assertTrue(System.nanoTime() - before >= ClosingGate.QUIET.toNanos());
        var other = CompletableFuture.runAsync(() -> {
            try {
                gate.pass("run_2");
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        gate.pass("run_1");
        assertEquals(null, other.get(30, TimeUnit.SECONDS));
    }
}
