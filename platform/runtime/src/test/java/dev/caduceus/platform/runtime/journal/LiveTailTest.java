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
}
