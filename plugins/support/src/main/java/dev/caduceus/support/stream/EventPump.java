package dev.caduceus.support.stream;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The one streaming loop of the endpoint families: reads a run's committed events from a
 * subscription, hands each to a translator, sends {@code : keepalive} comments when nothing was
 * written for the keepalive interval, and returns when the run's terminal event has been translated
 * ({@link Result#FINISHED}) or the client is gone ({@link Result#CLIENT_GONE}); the caller decides
 * what a disconnect means.
 *
 * <p>While the subscription has more entries at hand than the one being translated (a run that
 * produces faster than the client reads), they are all translated inside one
 * {@link EventStream#batch}, up to {@link #MAX_BATCH_ENTRIES}: one write instead of one per token.
 * A frame is never held back while the pump waits, so batching adds no latency.
 *
 * <p>Threading: one pump per stream, on the stream's thread. Stateless between calls.
 */
public final class EventPump {
    /** How many entries one write may carry at most. */
    public static final int MAX_BATCH_ENTRIES = 256;

    private final Duration keepalive;
    private final LongSupplier nanoTime;

    /** A pump that sends a keepalive comment after {@code keepalive} without a write. */
    public EventPump(Duration keepalive) {
        this(keepalive, System::nanoTime);
    }

    /** As above, with the monotonic clock to measure idleness by (tests). */
    public EventPump(Duration keepalive, LongSupplier nanoTime) {
        if (keepalive.isNegative() || keepalive.isZero()) throw new IllegalArgumentException("keepalive must be positive");
        this.keepalive = keepalive;
        this.nanoTime = nanoTime;
    }

    /** How {@link #pump} ended. */
    public enum Result { FINISHED, CLIENT_GONE }

    /** Pumps {@code subscription} into {@code out} through {@code translator} until the run ends or the client leaves. */
    public Result pump(RunSubscription subscription, RunEventTranslator translator, EventStream out)
            throws InterruptedException {
        var stamped = new Stamped(out, nanoTime);
        long keepaliveNanos = keepalive.toNanos();
        try {
            while (true) {
                long idle = nanoTime.getAsLong() - stamped.lastWrite;
                if (idle >= keepaliveNanos) {
                    stamped.comment("keepalive");
                    continue;
                }
                var entry = subscription.next(Duration.ofNanos(keepaliveNanos - idle));
                if (entry.isPresent()) {
                    if (translateAtHand(entry.get(), subscription, translator, stamped)) return Result.FINISHED;
                } else if (subscription.finished()) {
                    return Result.FINISHED;
                }
            }
        } catch (ClientGoneException e) {
            return Result.CLIENT_GONE;
        }
    }

    /** Translates {@code first} and whatever else is at hand in one batch; whether a terminal entry was among them. */
    private static boolean translateAtHand(JournalEntry first, RunSubscription subscription,
                                           RunEventTranslator translator, Stamped out)
            throws ClientGoneException, InterruptedException {
        var terminal = new boolean[1];
        out.batch(() -> {
            translator.translate(first, out);
            terminal[0] = first.event().isTerminal();
            for (int n = 1; !terminal[0] && n < MAX_BATCH_ENTRIES; n++) {
                var more = subscription.next(Duration.ZERO);
                if (more.isEmpty()) break;
                translator.translate(more.get(), out);
                terminal[0] = more.get().event().isTerminal();
            }
        });
        return terminal[0];
    }

    /** The stream, remembering when the pump last wrote to it. */
    private static final class Stamped implements EventStream {
        private final EventStream out;
        private final LongSupplier nanoTime;
        long lastWrite;

        Stamped(EventStream out, LongSupplier nanoTime) {
            this.out = out;
            this.nanoTime = nanoTime;
            this.lastWrite = nanoTime.getAsLong();
        }

        @Override
        public void event(Long id, String name, JsonNode data) throws ClientGoneException {
            out.event(id, name, data);
            lastWrite = nanoTime.getAsLong();
        }

        @Override
        public void data(String raw) throws ClientGoneException {
            out.data(raw);
            lastWrite = nanoTime.getAsLong();
        }

        @Override
        public void comment(String text) throws ClientGoneException {
            out.comment(text);
            lastWrite = nanoTime.getAsLong();
        }

        @Override
        public void batch(Frames frames) throws ClientGoneException, InterruptedException {
            out.batch(frames);
            lastWrite = nanoTime.getAsLong();
        }

        @Override
        public void close() {
            out.close();
        }
    }
}
