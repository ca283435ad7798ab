package dev.caduceus.platform.journal;

import dev.caduceus.spi.agent.JournalEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The last committed entries of each live durable run, in memory, so that subscribers following a
 * run are served without a database read and wake up without polling. A run's window holds at most
 * {@code capacity} entries; a subscriber whose cursor fell out of the window (a slow reader, or one
 * resuming from far back) is told to read the journal instead, and comes back to the tail when it
 * has caught up. Thread-safe.
 */
final class LiveTail {
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

    boolean isOpen(String runId) {
        return windows.containsKey(runId);
    }

    /**
     * Reads from the run's window; null when the run is not open or {@code afterSeq} is older than
     * the window (then the caller reads the journal).
     */
    EventPage read(String runId, long afterSeq, int max, Duration timeout) throws InterruptedException {
        var window = windows.get(runId);
        return window == null ? null : window.read(afterSeq, max, timeout);
    }

    /** One run's window: a ring holding entries {@code lastSeq - count + 1 .. lastSeq}, entry {@code s} at {@code s % capacity}. */
    private static final class Window {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition published = lock.newCondition();
        private final JournalEntry[] ring;
        private int count;
        private long lastSeq;
        private boolean ended;

        Window(int capacity, long lastSeq) {
            this.ring = new JournalEntry[capacity];
            this.lastSeq = lastSeq;
        }

        void add(JournalEntry entry) {
            lock.lock();
            try {
                if (entry.seq() <= lastSeq) return; // already published
                if (entry.seq() != lastSeq + 1) { // a gap cannot be served from memory: start the window afresh
                    count = 0;
                }
                ring[(int) (entry.seq() % ring.length)] = entry;
                count = Math.min(count + 1, ring.length);
                lastSeq = entry.seq();
                ended = entry.event().isTerminal();
                published.signalAll();
            } finally {
                lock.unlock();
            }
        }

        EventPage read(long afterSeq, int max, Duration timeout) throws InterruptedException {
            long nanos = timeout.toNanos();
            lock.lock();
            try {
                while (afterSeq >= lastSeq) {
                    if (ended) return EventPage.END;
                    if (nanos <= 0) return EventPage.TIMED_OUT;
                    nanos = published.awaitNanos(nanos);
                }
                long firstSeq = lastSeq - count + 1;
                if (afterSeq + 1 < firstSeq) return null; // fell out of the window: read the journal
                long to = Math.min(lastSeq, afterSeq + max);
                var page = new ArrayList<JournalEntry>((int) (to - afterSeq));
                for (long s = afterSeq + 1; s <= to; s++) page.add(ring[(int) (s % ring.length)]);
                return new EventPage(page, false);
            } finally {
                lock.unlock();
            }
        }
    }
}
