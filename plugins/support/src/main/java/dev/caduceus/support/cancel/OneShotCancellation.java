package dev.caduceus.support.cancel;

import dev.caduceus.spi.tool.Cancellation;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Cancellation} a plugin fires itself, once: when its HTTP client goes away, or when a
 * protocol message says so (MCP's {@code notifications/cancelled}). Callbacks run on the cancelling
 * thread, or at once on the registering thread when already cancelled; once cancelled it stays so.
 * Thread-safe.
 */
public final class OneShotCancellation implements Cancellation {
    private final List<Runnable> callbacks = new ArrayList<>();
    private boolean cancelled;

    /** Cancels, running the registered callbacks once. Idempotent. */
    public void cancel() {
        List<Runnable> toRun;
        synchronized (callbacks) {
            if (cancelled) return;
            cancelled = true;
            toRun = List.copyOf(callbacks);
            callbacks.clear();
        }
        toRun.forEach(Runnable::run);
    }

    @Override
    public boolean isCancelled() {
        synchronized (callbacks) {
            return cancelled;
        }
    }

    @Override
    public AutoCloseable onCancel(Runnable callback) {
        synchronized (callbacks) {
            if (!cancelled) {
                callbacks.add(callback);
                return () -> {
                    synchronized (callbacks) {
                        callbacks.remove(callback);
                    }
                };
            }
        }
        callback.run();
        return () -> { };
    }
}
