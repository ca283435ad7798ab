package dev.caduceus.plugin.responses;

import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.http.ClientGoneException;
import java.time.Duration;
import java.util.Optional;

/**
 * The 50 ms text batching of a Responses stream (a tool event flushes the batch first): wraps the run's
 * subscription so that {@link dev.caduceus.spi.http.EventStream#pump} wakes up when a batch is due,
 * and sends it through the stream before waiting on. A failed send ends the subscription; the stream
 * then reads {@link #clientGone()}. Confined to the stream's thread.
 */
final class TextBatch implements RunSubscription {
    static final Duration WINDOW = Duration.ofMillis(50);

    private final RunSubscription inner;
    private final ResponseStream stream;
    private long dueNanos;
    private boolean waiting;
    private boolean gone;

    TextBatch(RunSubscription inner, ResponseStream stream) {
        this.inner = inner;
        this.stream = stream;
    }

    @Override public String runId() { return inner.runId(); }

    @Override
    public Optional<JournalEntry> next(Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!gone) {
            if (stream.pending() && !waiting) {
                waiting = true;
                dueNanos = System.nanoTime() + WINDOW.toNanos();
            }
            long now = System.nanoTime();
            if (waiting && now >= dueNanos) {
                flush();
                continue;
            }
            long wait = Math.min(end - now, waiting ? dueNanos - now : Long.MAX_VALUE);
            if (wait <= 0) return Optional.empty();
            var entry = inner.next(Duration.ofNanos(wait));
            if (entry.isPresent() || inner.finished()) return entry;
        }
        return Optional.empty();
    }

    private void flush() {
        waiting = false;
        try {
            stream.flush();
        } catch (ClientGoneException e) {
            gone = true;
        }
    }

    /** Whether a batch could not be sent because the client left. */
    boolean clientGone() {
        return gone;
    }

    @Override public boolean finished() { return gone || inner.finished(); }

    @Override public void close() { inner.close(); }
}
