package dev.caduceus.plugin.runs;

import dev.caduceus.support.stream.EventPump;
import dev.caduceus.support.stream.RunEventTranslator;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;
import java.time.Duration;

/**
 * {@code GET /v1/runs/{run_id}/events}: replays the run's journal after the cursor,
 * then follows the live tail, and ends with {@code : stream closed} after the terminal event. Any
 * number of subscribers; a client that leaves only ends its own stream, never the run.
 *
 * <p>Before the stream opens: unknown run → 404; a malformed cursor → 400; a cursor beyond the
 * run's {@code last_seq} → 400 (a cursor the server never issued would silently skip events). While
 * the run is live such a cursor may first wait up to {@code cursorGrace} for the record to catch up,
 * since the journal commits in batches and a subscriber may already have seen that event (the grace
 * is measured on the context's clock). A terminal
 * run with nothing after the cursor closes at once. Thread-safe; blocks its request thread for the
 * stream's life.
 */
final class EventsHandler implements HttpHandler {
    static final String CLOSED = "stream closed";
    private static final Duration POLL = Duration.ofMillis(100);

    private final PlatformContext ctx;
    private final Duration cursorGrace;
    private final RunEventFrames frames;
    private final ClosingGate closingGate = new ClosingGate();

    EventsHandler(PlatformContext ctx, Duration cursorGrace) {
        this.ctx = ctx;
        this.cursorGrace = cursorGrace;
        this.frames = new RunEventFrames(new EncodedFrames(ctx.json()));
    }

    @Override
    public void handle(HttpExchange exchange) throws InterruptedException {
        var id = exchange.pathParam("run_id");
        var runs = ctx.runs();
        var record = OwnedRuns.require(runs, exchange, id);
        var cursor = EventCursor.read(exchange);
        record = settle(runs, record, cursor);
        if (cursor > record.lastSeq()) throw EventCursor.beyondLastEvent(cursor, record.lastSeq());
        if (record.status().isTerminal() && cursor >= record.lastSeq()) {
            closeAtOnce(exchange.openEventStream());
            return;
        }
        var handle = runs.find(id).orElseThrow(() -> RunErrors.runNotFound(id));
        try (var subscription = handle.subscribe(cursor); var out = exchange.openEventStream()) {
            var pump = new EventPump(Duration.ofSeconds(ctx.global().sseKeepaliveSeconds()));
            var closed = new boolean[1];
            RunEventTranslator closing = (entry, stream) -> { // the terminal frame and the comment in one write
                frames.translate(entry, stream);
                if (entry.event().isTerminal()) {
                    stream.comment(CLOSED);
                    closed[0] = true;
                }
            };
            if (pump.pump(subscription, closing, out) == EventPump.Result.FINISHED) {
                if (!closed[0]) out.comment(CLOSED);
                // Every subscriber of the run woke for this last frame: the others send theirs before this one closes.
                closingGate.pass(id);
            }
        } catch (ClientGoneException e) {
            // The client left after the last frame; the run is not affected.
        }
    }

    /** The record once its {@code last_seq} reaches {@code cursor}, the run ends, or the grace is over. */
    private RunRecord settle(Runs runs, RunRecord record, long cursor) throws InterruptedException {
        var clock = ctx.clock();
        var deadline = clock.instant().plus(cursorGrace);
        while (cursor > record.lastSeq() && !record.status().isTerminal()) {
            var left = Duration.between(clock.instant(), deadline);
            if (left.isNegative() || left.isZero()) break;
            Thread.sleep(left.compareTo(POLL) < 0 ? left : POLL);
            record = runs.record(record.runId()).orElse(record);
        }
        return record;
    }

    private static void closeAtOnce(EventStream out) {
        try (out) {
            out.comment(CLOSED);
        } catch (ClientGoneException e) {
            // Nobody is listening; nothing to close for.
        }
    }
}
