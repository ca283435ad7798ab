package dev.caduceus.plugin.responses;

import dev.caduceus.support.wire.Flags;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;
import java.time.Duration;
import java.util.Set;

/**
 * {@code GET /v1/responses/{response_id}}: the stored response object, or with
 * {@code ?stream=true} a replay of its events after {@code starting_after}: the journal of a streamed or
 * background response, followed live while a process still writes it ({@link JournalFollower}), or events
 * synthesized from the stored object. Another key's response is the same 404 as an unknown id, for both.
 * Thread-safe.
 */
final class RetrieveHandler implements HttpHandler {
    private final PlatformContext ctx;
    private final ResponseStore store;
    private final Set<String> live;
    private final Duration retention;
    private final JournalFollower follower;

    RetrieveHandler(PlatformContext ctx, ResponseStore store, Set<String> live, Duration retention) {
        this.ctx = ctx;
        this.store = store;
        this.live = live;
        this.retention = retention;
        this.follower = new JournalFollower(ctx, store, live);
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
                follower.follow(id, caller, after, out);
            else ResponseEvents.synthesize(found.envelope(), new EventWriter(out, null, id, 0, after));
        } catch (ClientGoneException e) {
            // The client left the replay; nothing else depends on it.
        }
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
