package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.tool.Cancellation;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Cancellation} that can be fired once, with the reason that fired it. Callbacks run on the
 * cancelling thread (or at once when already cancelled). Thread-safe.
 */
public final class RunCancellation implements Cancellation {
    private final List<Runnable> callbacks = new ArrayList<>();
    private volatile String reason;

    /** Fires the cancellation; the first reason wins. Returns false when already cancelled. */
    public boolean cancel(String why) {
        List<Runnable> toRun;
        synchronized (callbacks) {
            if (reason != null) return false;
            reason = why == null ? "cancelled" : why;
            toRun = List.copyOf(callbacks);
            callbacks.clear();
        }
        toRun.forEach(RunCancellation::runQuietly);
        return true;
    }

    /** The reason given to {@link #cancel}, or null while not cancelled. */
    public String reason() {
        return reason;
    }

    @Override
    public boolean isCancelled() {
        return reason != null;
    }

    @Override
    public AutoCloseable onCancel(Runnable callback) {
        synchronized (callbacks) {
            if (reason == null) {
                callbacks.add(callback);
                return () -> {
                    synchronized (callbacks) {
                        callbacks.remove(callback);
                    }
                };
            }
        }
        runQuietly(callback);
        return () -> { };
    }

    private static void runQuietly(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(RunCancellation.class).warn("Cancellation callback failed", e);
        }
    }
}
