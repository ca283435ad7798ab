package dev.caduceus.platform.runtime.journal;

import dev.caduceus.spi.agent.JournalEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The last committed entries of each live durable run, in memory, so that subscribers following a
 * run are served without a database read and wake up without polling. A run's window holds at most
 * {@code capacity} entries; a subscriber whose cursor fell out of the window (a slow reader, or one
 * resuming from far back) is told to read the journal instead, and comes back to the tail when it
 * has caught up. Thread-safe.
 */
final class LiveTail {
    /** Waits at least this long share their window's timer instead of a timed park each ({@link Window}). */
    static final long SHARED_TIMER_FROM_MS = 1000;
    /** How late a shared-timer wait may end at most: its timeout / 16, up to this. */
    static final long MAX_LATENESS_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final int capacity;
    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    LiveTail(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be >= 1");
        this.capacity = capacity;
    }

    /** Starts following a run whose last committed entry is {@code lastSeq}. */
    void open(String runId, long lastSeq) {
        windows.putIfAbsent(runId, new Window(capacity, lastSeq));
    }

    /** Publishes a committed entry and wakes the run's readers. Entries of runs not open are ignored. */
    void publish(JournalEntry entry) {
        var window = windows.get(entry.runId());
        if (window != null) window.add(entry);
    }

    /** Stops following a run; readers already waiting on it still get its entries. */
    void close(String runId) {
        windows.remove(runId);
    }

    /**
     * Reads from the run's window; null when the run is not open or {@code afterSeq} is older than
     * the window (then the caller reads the journal).
     */
    EventPage read(String runId, long afterSeq, int max, Duration timeout) throws InterruptedException {
        var window = windows.get(runId);
        return window == null ? null : window.read(afterSeq, max, timeout);
    }

    /**
     * One run's window: a ring holding entries {@code lastSeq - count + 1 .. lastSeq}, entry {@code s}
     * at {@code s % capacity}. The writer (the journal thread, one at a time per run) fills the slot,
     * then publishes {@code lastSeq} (volatile) and completes the current generation's future, which
     * wakes every waiting reader without a lock: a thousand readers of one run do not queue on a
     * monitor to read the entry they were woken for. A reader re-checks each slot's {@code seq}, so a
     * slot overwritten by the ring wrapping around sends it to the database instead.
     *
     * <p>Long waits (a stream's keepalive interval) share one timer per window instead of a timed park
     * each: a virtual thread's timed park schedules a timer task and cancels it when woken early, which
     * cost a tenth of the server's CPU at 10,000 subscribers of one run (bench/README.md, issue 41).
     * A reader waiting {@value #SHARED_TIMER_FROM_MS} ms or more records by when it must be woken
     * ({@link #due}: its deadline plus up to {@code timeout / 16}, at most 1 s, so that readers whose
     * deadlines are close together time out in one wake-up); the window keeps one timer at or before
     * the earliest such time ({@link #timerAt}). When it fires, it wakes every reader if one is due,
     * or moves to the earliest due time; a reader woken before its deadline waits again. Every new
     * entry wakes every reader and clears {@code due}.
     */
    private static final class Window {
        private static final long NONE = Long.MAX_VALUE;

        private final Object writeLock = new Object();
        private final JournalEntry[] ring;
        private volatile long lastSeq;
        private volatile long firstSeq;
        private volatile boolean ended;
        private volatile CompletableFuture<Void> generation = new CompletableFuture<>();
        /** The earliest {@link System#nanoTime} by which a waiting reader must be woken; {@link #NONE} when none. */
        private final AtomicLong due = new AtomicLong(NONE);
        /** When the pending timer fires; 0 when there is none. */
        private final AtomicLong timerAt = new AtomicLong();

        Window(int capacity, long lastSeq) {
            this.ring = new JournalEntry[capacity];
            this.lastSeq = lastSeq;
            this.firstSeq = lastSeq + 1;
        }

        void add(JournalEntry entry) {
            CompletableFuture<Void> wake;
            synchronized (writeLock) {
                long last = lastSeq;
                if (entry.seq() <= last) return; // already published
                if (entry.seq() != last + 1) firstSeq = entry.seq(); // a gap cannot be served from memory
                ring[(int) (entry.seq() % ring.length)] = entry;
                firstSeq = Math.max(firstSeq, entry.seq() - ring.length + 1);
                wake = nextGeneration();
                lastSeq = entry.seq(); // publishes the slot
                if (entry.event().isTerminal()) ended = true; // after lastSeq: a reader that sees it sees the entry
            }
            wake.complete(null);
        }

        EventPage read(long afterSeq, int max, Duration timeout) throws InterruptedException {
            long timeoutNanos = timeout.toNanos();
            long deadline = System.nanoTime() + timeoutNanos;
            boolean sharedTimer = timeoutNanos >= TimeUnit.MILLISECONDS.toNanos(SHARED_TIMER_FROM_MS);
            long lateness = Math.min(MAX_LATENESS_NANOS, timeoutNanos / 16);
            while (true) {
                var waitFor = generation; // taken before lastSeq: an add after this completes it
                boolean end = ended;        // read before lastSeq (written after it)
                long last = lastSeq;
                if (afterSeq < last) return page(afterSeq, last, max);
                if (end) return EventPage.END;
                long nanos = deadline - System.nanoTime();
                if (nanos <= 0) return EventPage.TIMED_OUT;
                try {
                    if (sharedTimer) {
                        wakeBy(deadline + lateness); // after taking the generation: a wake-up after this completes it
                        waitFor.get();
                    } else {
                        waitFor.get(nanos, TimeUnit.NANOSECONDS);
                    }
                } catch (TimeoutException e) {
                    return EventPage.TIMED_OUT;
                } catch (ExecutionException e) {
                    throw new IllegalStateException(e);
                }
            }
        }

        /** Makes sure the window's readers are woken no later than {@code when} ({@link System#nanoTime}). */
        private void wakeBy(long when) {
            due.accumulateAndGet(when, Math::min);
            while (true) {
                long at = timerAt.get();
                if (at != 0 && at <= when) return; // a timer fires in time; it looks at due then
                if (timerAt.compareAndSet(at, when)) {
                    long delay = Math.max(0, when - System.nanoTime());
                    CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(() -> fire(when));
                    return;
                }
            }
        }

        /** The timer set for {@code at}: wakes every reader if one is due, else sets the timer for the earliest due. */
        private void fire(long at) {
            if (!timerAt.compareAndSet(at, 0)) return; // an earlier timer replaced this one and took its duty
            long when = due.get();
            if (when == NONE) return; // nobody waits with a deadline
            if (when - System.nanoTime() > 0) {
                wakeBy(when);
                return;
            }
            CompletableFuture<Void> wake;
            synchronized (writeLock) {
                wake = nextGeneration();
            }
            wake.complete(null); // readers before their deadline wait again
        }

        /**
         * Starts a new generation and returns the one to complete, which wakes every reader; those that wait again
         * record their deadlines anew. The caller holds {@link #writeLock}.
         */
        private CompletableFuture<Void> nextGeneration() {
            due.set(NONE);
            var wake = generation;
            generation = new CompletableFuture<>();
            return wake;
        }

        /** Entries after {@code afterSeq} up to {@code last}; null when they left the ring. */
        private EventPage page(long afterSeq, long last, int max) {
            if (afterSeq + 1 < firstSeq) return null;
            long to = Math.min(last, afterSeq + max);
            var page = new ArrayList<JournalEntry>((int) (to - afterSeq));
            for (long s = afterSeq + 1; s <= to; s++) {
                var e = ring[(int) (s % ring.length)];
                if (e == null || e.seq() != s) return null; // overwritten meanwhile: read the journal
                page.add(e);
            }
            return new EventPage(page, false);
        }
    }
}
