package dev.caduceus.plugin.mcpserver;

import dev.caduceus.spi.tool.Cancellation;
import java.util.ArrayList;
import java.util.List;

/**
 * The cancellation of one MCP request: fired when its HTTP client goes away, or when the client sends
 * {@code notifications/cancelled} for it. Thread-safe; callbacks run on the cancelling thread (or at
 * once when already cancelled). Once cancelled it stays cancelled.
 */
final class CallCancellation implements Cancellation {
    private final List<Runnable> callbacks = new ArrayList<>();
    private boolean cancelled;

    /** Cancels, running the registered callbacks once. Idempotent. */
    void cancel() {
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
