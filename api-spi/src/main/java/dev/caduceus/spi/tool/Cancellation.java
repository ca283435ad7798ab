package dev.caduceus.spi.tool;

/**
 * A one-way cancellation signal for a run, a model call or a tool call.
 *
 * <p>Threading: thread-safe. Any thread may observe it; callbacks run on the thread that cancels
 * (or at once, on the registering thread, when already cancelled) and must not block.
 * Lifecycle: once cancelled it stays cancelled.
 */
public interface Cancellation {

    /** Whether cancellation was requested. */
    boolean isCancelled();

    /** Registers a callback run once on cancellation; returns a handle that unregisters it. */
    AutoCloseable onCancel(Runnable callback);

    /** Throws {@link java.util.concurrent.CancellationException} when cancelled. */
    default void throwIfCancelled() {
        if (isCancelled()) throw new java.util.concurrent.CancellationException("cancelled");
    }
}
