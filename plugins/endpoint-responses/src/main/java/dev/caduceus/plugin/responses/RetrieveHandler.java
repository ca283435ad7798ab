package dev.caduceus.plugin.responses;

import dev.caduceus.support.wire.Flags;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;
import java.time.Duration;
import java.util.Set;

/**
 * {@code GET /v1/responses/{response_id}}: the stored response object, or with
 * {@code ?stream=true} a best-effort replay of its events after {@code starting_after}: the journal of
 * a streamed response (continued live while this process, or another node holding its stream lease,
 * still streams it, else closed with a synthetic {@code response.incomplete}), or events synthesized
 * from the stored object. Another key's response is the same 404 as an unknown id, for both.
 * Thread-safe.
 */
final class RetrieveHandler implements HttpHandler {
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration KEEPALIVE = Duration.ofSeconds(15);
    private static final Set<String> TERMINAL = Set.of("response.completed", "response.failed", "response.incomplete");

    private final PlatformContext ctx;
    private final ResponseStore store;
    private final Set<String> live;
    private final Duration retention;

    RetrieveHandler(PlatformContext ctx, ResponseStore store, Set<String> live, Duration retention) {
        this.ctx = ctx;
        this.store = store;
        this.live = live;
        this.retention = retention;
    }

    @Override
    public void handle(HttpExchange exchange) throws Exception {
        var id = exchange.pathParam("response_id");
        var stream = Flags.parse(exchange.query("stream").map(Envelope.JSON::textNode).orElse(null), false);
        var after = stream ? cursor(exchange) : -1L;
        var caller = exchange.caller(); // another key's response is the 404 of an unknown id
        var found = store.find(id, caller).orElseThrow(() -> notFound(id));
        if (!stream) {
            exchange.respond(200, found.envelope());
            return;
        }
        var expired = ctx.clock().instant().getEpochSecond() > found.createdAt() + retention.toSeconds();
        try (var out = exchange.openEventStream()) {
            if (found.streamed() && !expired && (live.contains(id) || store.lastSeq(id).isPresent()))
                replayJournal(id, caller, after, out);
            else ResponseEvents.synthesize(found.envelope(), new EventWriter(out, null, id, 0, after));
        } catch (ClientGoneException e) {
            // The client left the replay; nothing else depends on it.
        }
    }

    /** The journal of {@code id} (already found to be {@code caller}'s) after {@code after}. */
    private void replayJournal(String id, Caller caller, long after, EventStream out) throws Exception {
        long last = after;
        long quietSince = System.nanoTime();
        while (true) {
            var stillLive = live.contains(id) || store.streaming(id, ctx.clock().instant());
            for (var frame : store.frames(id, last)) {
                last = frame.seq();
                quietSince = System.nanoTime();
                JsonNode data;
                try {
                    data = ctx.json().readTree(frame.json());
                } catch (JsonProcessingException e) {
                    continue; // a corrupt journal row is skipped; replay is best effort
                }
                out.event(null, frame.type(), data);
                if (TERMINAL.contains(frame.type())) return;
            }
            if (!stillLive) break; // read once more after the stream ended, then give up
            if (System.nanoTime() - quietSince >= KEEPALIVE.toNanos()) {
                out.comment("keepalive"); // following a live stream through a long tool call
                quietSince = System.nanoTime();
            }
            Thread.sleep(POLL);
        }
        // The journal ends without a terminal event (client disconnect, crash): close it synthetically.
        var envelope = store.find(id, caller).map(StoredResponse::envelope).orElse(null);
        if (envelope == null) return;
        long next = store.lastSeq(id).orElse(-1L) + 1;
        if (next <= after) return;
        var frame = Envelope.JSON.objectNode().put("type", "response.incomplete");
        frame.set("response", ((ObjectNode) envelope.deepCopy()).put("status", "incomplete"));
        frame.put("sequence_number", next);
        out.event(null, "response.incomplete", frame);
    }

    /** {@code starting_after}: absent means all; otherwise a non-negative integer, else a 400. */
    private static long cursor(HttpExchange exchange) {
        var raw = exchange.query("starting_after");
        if (raw.isEmpty()) return -1;
        var value = raw.get().trim();
        if (!value.matches("[0-9]{1,18}"))
            throw ApiError.badRequest("invalid_event_cursor", "Invalid event cursor: " + raw.get(),
                    "starting_after").exception();
        return Long.parseLong(value);
    }

    static RuntimeException notFound(String id) {
        return ApiError.notFound("response_not_found", "Response not found: " + id).exception();
    }
}
