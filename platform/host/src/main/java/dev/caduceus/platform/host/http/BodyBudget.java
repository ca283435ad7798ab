package dev.caduceus.platform.host.http;

import dev.caduceus.spi.http.HttpStatusException;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * How many request-body bytes the server holds at once ({@code server.body_memory_percent} of the
 * JVM's maximum heap), so that many large requests at the same time are answered 503 rather than run
 * the heap out: a body costs several times its size while it is handled (its bytes, its JSON tree, the
 * model request built from it), and an {@link OutOfMemoryError} can hit any thread, not only the
 * request's. A body with a {@code Content-Length} waits for its share, first come first served, up
 * to {@link #WAIT}; a chunked body takes its share as it arrives and never waits (two chunked bodies
 * each waiting for the other's share would only time out). A share is held until the exchange
 * completes, then given back. A body larger than the whole budget waits until it can run alone.
 *
 * <p>Counted in KiB: a permit is {@value #UNIT} bytes. Threading: thread-safe; a {@link Share} belongs
 * to one exchange (taken on its thread, given back by Jetty's completion on another).
 */
final class BodyBudget {
    static final int UNIT = 1024;
    /** How long a request waits for memory before its 503. */
    static final Duration WAIT = Duration.ofSeconds(30);

    /** No limit (0 %). */
    static final BodyBudget UNLIMITED = new BodyBudget(0, WAIT);

    private final int total;
    private final Semaphore permits;
    private final Duration wait;

    /** {@code bytes} of budget (0 = no limit); a body with a length waits at most {@code wait} for room. */
    BodyBudget(long bytes, Duration wait) {
        this.total = (int) Math.min(Integer.MAX_VALUE, bytes / UNIT);
        this.permits = new Semaphore(total, true);
        this.wait = wait;
    }

    /** {@code percent} of {@code maxHeapBytes} (0 = no limit). */
    static BodyBudget ofHeap(int percent, long maxHeapBytes) {
        if (percent < 0 || percent > 100) throw new IllegalArgumentException("percent out of 0..100: " + percent);
        return percent == 0 ? UNLIMITED : new BodyBudget(Math.max(UNIT, maxHeapBytes / 100 * percent), WAIT);
    }

    boolean limited() {
        return total > 0;
    }

    long bytes() {
        return (long) total * UNIT;
    }

    /** Bodies waiting for room now (an estimate, for tests and health). */
    int waiting() {
        return permits.getQueueLength();
    }

    /** Bytes free now. */
    long free() {
        return (long) permits.availablePermits() * UNIT;
    }

    /** What one exchange holds; {@link #release()} gives all of it back, once. */
    final class Share {
        private int held;
        private boolean released;

        /**
         * Waits (at most the budget's wait, {@link #WAIT} in the server) for room for a body of {@code bytes}.
         *
         * @throws HttpStatusException 503 {@code server_busy} when none came in time
         */
        void awaitRoomFor(long bytes) {
            if (!limited()) return;
            int want = units(bytes);
            try {
                if (!permits.tryAcquire(want, wait.toMillis(), TimeUnit.MILLISECONDS)) throw busy(bytes);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw busy(bytes);
            }
            synchronized (this) {
                held += want;
                if (released) giveBack(); // completed while waiting (the client went away)
            }
        }

        /**
         * Grows the share to {@code bytes} read so far of a body without a length, without waiting.
         *
         * @throws HttpStatusException 503 {@code server_busy} when there is no room now
         */
        void growTo(long bytes) {
            if (!limited()) return;
            int want = units(bytes);
            synchronized (this) {
                if (want <= held || released) return;
                if (!permits.tryAcquire(want - held)) throw busy(bytes);
                held = want;
            }
        }

        synchronized void release() {
            released = true;
            giveBack();
        }

        private void giveBack() {
            if (held > 0) permits.release(held);
            held = 0;
        }
    }

    Share share() {
        return new Share();
    }

    private int units(long bytes) {
        return (int) Math.min(total, (bytes + UNIT - 1) / UNIT);
    }

    private HttpStatusException busy(long bytes) {
        return ApiErrors.serverBusy(bytes, bytes()).exception();
    }
}
