package dev.caduceus.plugin.web;

import dev.caduceus.spi.tool.Cancellation;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the blocking HTTP work of one tool call on virtual threads, so the tool's thread can give up
 * at a deadline or as soon as the run is cancelled: the work is then interrupted, which aborts the
 * JDK HTTP exchange and any blocked body read.
 *
 * <p>Lifecycle: one per tool call; {@link #close()} interrupts whatever is still running and does not
 * wait for it. Threading: used by the tool's thread only.
 */
final class Watchdog implements AutoCloseable {
    private static final long POLL_MS = 25;

    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Cancellation cancellation;

    /** The run was cancelled while waiting. */
    static final class Interrupted extends Exception {
        Interrupted() {
            super("Interrupted", null, false, false);
        }
    }

    Watchdog(Cancellation cancellation) {
        this.cancellation = cancellation;
    }

    <T> Future<T> start(Callable<T> work) {
        return threads.submit(work);
    }

    /**
     * Waits for {@code future} until {@code deadlineNanos} ({@link System#nanoTime()} scale).
     *
     * @throws Interrupted        the run was cancelled (the work is interrupted)
     * @throws TimeoutException   the deadline passed (the work is interrupted)
     * @throws ExecutionException the work failed
     */
    <T> T await(Future<T> future, long deadlineNanos) throws Interrupted, TimeoutException, ExecutionException {
        while (true) {
            if (cancellation.isCancelled()) {
                future.cancel(true);
                throw new Interrupted();
            }
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                future.cancel(true);
                throw new TimeoutException();
            }
            try {
                return future.get(Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, POLL_MS), TimeUnit.MILLISECONDS);
            } catch (TimeoutException stillRunning) {
                // poll again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                future.cancel(true);
                throw new Interrupted();
            }
        }
    }

    static long deadline(Duration timeout) {
        return System.nanoTime() + timeout.toNanos();
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}
