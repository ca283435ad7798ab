package dev.caduceus.plugin.web;

import dev.caduceus.spi.tool.Cancellation;
import java.util.ArrayList;
import java.util.List;

/**
 * A cancellation the test fires ({@link #cancel()}), handed to a direct tool call on the host
 * ({@code ToolCalls.Request}) as a client that goes away would fire one. Thread-safe.
 */
final class TestCancellation implements Cancellation {
    private final List<Runnable> callbacks = new ArrayList<>();
    private volatile boolean cancelled;

    @Override public boolean isCancelled() { return cancelled; }

    @Override
    public synchronized AutoCloseable onCancel(Runnable callback) {
        if (cancelled) callback.run();
        else callbacks.add(callback);
        return () -> { synchronized (this) { callbacks.remove(callback); } };
    }

    synchronized void cancel() {
        cancelled = true;
        callbacks.forEach(Runnable::run);
        callbacks.clear();
    }
}
