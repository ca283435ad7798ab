package dev.caduceus.plugin.terminal;

import dev.caduceus.spi.tool.Cancellation;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A session id for direct calls ({@link Harness#call}) and a cancellation the test can fire for them: the
 * values a client hands the host, not host behaviour. Thread-safe.
 */
record Session(String sessionId, Signal cancellation) {

    Session(String sessionId) {
        this(sessionId, new Signal());
    }

    /** A cancellation a test can fire. */
    static final class Signal implements Cancellation {
        private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();
        private volatile boolean cancelled;

        void cancel() {
            cancelled = true;
            callbacks.forEach(Runnable::run);
        }

        @Override public boolean isCancelled() { return cancelled; }

        @Override
        public AutoCloseable onCancel(Runnable callback) {
            if (cancelled) {
                callback.run();
                return () -> {};
            }
            callbacks.add(callback);
            return () -> callbacks.remove(callback);
        }
    }
}
