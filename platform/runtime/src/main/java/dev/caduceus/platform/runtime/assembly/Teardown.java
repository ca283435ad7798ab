package dev.caduceus.platform.runtime.assembly;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an assembly opened, closed in the reverse order it was opened: on a failed boot, the parts made so far;
 * at shutdown, all of them. A part that fails to close is logged and the rest still close. Confined to the
 * thread that assembles, then to the one that closes.
 */
final class Teardown implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Teardown.class);
    private final Deque<AutoCloseable> parts = new ArrayDeque<>();

    /** Remembers {@code part} to be closed before everything added earlier; returns it. */
    <T extends AutoCloseable> T add(T part) {
        parts.push(part);
        return part;
    }

    @Override
    public void close() {
        while (!parts.isEmpty()) {
            var part = parts.pop();
            try {
                part.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                LOG.warn("Interrupted while closing {}", part);
            } catch (Exception | Error e) {
                LOG.warn("Closing {} failed: {}", part, e.toString());
            }
        }
    }
}
