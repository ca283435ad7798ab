package dev.caduceus.platform.runtime.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The in-memory tail: many concurrent readers, a wrapping ring, the end. */
class LiveTailTest {
    static JournalEntry entry(long seq, boolean last) {
        RunEvent event = last ? new RunEvent.Completed("done", StopReason.STOP, null, Usage.ZERO)
                : new RunEvent.TextDelta("t" + seq);
        return new JournalEntry("run_x", seq, Instant.EPOCH, event);
    }

    @Test
    void everyReaderSeesEveryEntryInOrderWhileTheWriterRacesAhead() throws Exception {
        var tail = new LiveTail(64);
        tail.open("run_x", 0);
        int total = 5000;
        var readers = new ArrayList<CompletableFuture<List<Long>>>();
        for (int r = 0; r < 32; r++) {
            var f = new CompletableFuture<List<Long>>();
            Thread.ofVirtual().start(() -> {
                var seen = new ArrayList<Long>();
                long cursor = 0;
                try {
                    while (true) {
                        var page = tail.read("run_x", cursor, 16, Duration.ofSeconds(5));
                        if (page == null) { // fell out of the ring: the database would answer; jump like it does
                            seen.add(-1L);
                            cursor = total; // give up following from memory
                            break;
                        }
                        if (page.end()) break;
                        for (var e : page.entries()) {
                            seen.add(e.seq());
                            cursor = e.seq();
                        }
                        if (cursor == total) break;
                    }
                    f.complete(seen);
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
            readers.add(f);
        }
        for (long s = 1; s <= total; s++) {
            tail.publish(entry(s, s == total));
            if (s % 50 == 0) Thread.sleep(1); // let readers keep up most of the time
        }
        for (var f : readers) {
            var seen = f.get(30, TimeUnit.SECONDS);
            long expected = 1;
            for (long s : seen) {
                if (s == -1L) break; // a reader that lagged past the ring was sent to the database
                assertEquals(expected++, s, "dense and in order");
            }
        }
        assertTrue(tail.read("run_x", total, 16, Duration.ZERO).end(), "after the terminal entry: the end");
    }

    @Test
    void aCursorOlderThanTheRingIsSentToTheDatabaseAndAnUnknownRunToo() throws Exception {
        var tail = new LiveTail(4);
        tail.open("run_x", 0);
        for (long s = 1; s <= 10; s++) tail.publish(entry(s, false));
        assertNull(tail.read("run_x", 2, 16, Duration.ZERO), "entries 3..6 left the ring");
        assertEquals(List.of(7L, 8L, 9L, 10L), tail.read("run_x", 6, 16, Duration.ZERO).entries().stream()
                .map(JournalEntry::seq).toList());
        assertTrue(tail.read("run_x", 10, 16, Duration.ofMillis(20)).entries().isEmpty(), "waits, then times out");
        assertNull(tail.read("run_other", 0, 16, Duration.ZERO));
    }

    /**
     * Waits of a second or more share the window's timer: readers with deadlines between 1 and 3 s all time out, none
     * before its own deadline (a reader woken by the timer of an earlier deadline waits again).
     */
    @Test
    void longWaitsTimeOutOnTheSharedTimerNoneBeforeItsDeadline() throws Exception {
        var tail = new LiveTail(8);
        tail.open("run_x", 0);
        var readers = new ArrayList<CompletableFuture<long[]>>();
        for (int r = 0; r < 60; r++) {
            long timeoutMs = 1000 + r * 2000L / 59;
            var f = new CompletableFuture<long[]>();
            Thread.ofVirtual().start(() -> {
                try {
                    long t0 = System.nanoTime();
                    var page = tail.read("run_x", 0, 16, Duration.ofMillis(timeoutMs));
                    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                    f.complete(new long[] {page == EventPage.TIMED_OUT ? 1 : 0, timeoutMs, elapsedMs});
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
            readers.add(f);
        }
        for (var f : readers) {
            var result = f.get(30, TimeUnit.SECONDS);
            assertEquals(1, result[0], "timed out");
            assertTrue(result[2] >= result[1], "waited " + result[2] + " ms of its " + result[1] + " ms");
        }
    }

    @Test
    void anEntryWakesReadersWaitingOnTheSharedTimer() throws Exception {
        var tail = new LiveTail(8);
        tail.open("run_x", 0);
        var readers = new ArrayList<CompletableFuture<EventPage>>();
        var waiting = new CountDownLatch(100);
        for (int r = 0; r < 100; r++) {
            var f = new CompletableFuture<EventPage>();
            Thread.ofVirtual().start(() -> {
                try {
                    waiting.countDown();
                    f.complete(tail.read("run_x", 0, 16, Duration.ofMinutes(10)));
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
            readers.add(f);
        }
        waiting.await();
        tail.publish(entry(1, false));
        for (var f : readers) assertEquals(1, f.get(30, TimeUnit.SECONDS).entries().getFirst().seq());
    }
}
