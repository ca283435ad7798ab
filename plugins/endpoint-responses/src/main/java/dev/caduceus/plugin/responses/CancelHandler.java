package dev.caduceus.plugin.responses;

import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;
import java.time.Duration;
import java.util.Set;

/**
 * {@code POST /v1/responses/{response_id}/cancel}: stops a background response that is queued or running, and
 * answers the response object once it has ended ({@code cancelled}). On this process the run is cancelled at
 * once; a response another node runs gets a cancel mark that node picks up within a few hundred milliseconds.
 * A response that already ended is returned unchanged; one not created with {@code background: true} is a 400,
 * as OpenAI answers; another key's response is the 404 of an unknown id. Thread-safe.
 */
final class CancelHandler implements HttpHandler {
    /** How long the call waits for the response to end before it answers what the store holds. */
    static final Duration WAIT = Duration.ofSeconds(5);
    private static final Duration POLL = Duration.ofMillis(50);
    private static final Set<String> RUNNING = Set.of("queued", "in_progress");

    private final PlatformContext ctx;
    private final ResponseStore store;
    private final BackgroundResponses background;

    CancelHandler(PlatformContext ctx, ResponseStore store, BackgroundResponses background) {
        this.ctx = ctx;
        this.store = store;
        this.background = background;
    }

    @Override
    public void handle(HttpExchange exchange) throws Exception {
        var id = exchange.pathParam("response_id");
        var caller = exchange.caller();
        var found = store.find(id, caller).orElseThrow(() -> RetrieveHandler.notFound(id));
        if (!found.envelope().path("background").asBoolean(false))
            throw ApiError.badRequest("invalid_request", "Only responses created with background=true can be cancelled.",
                    null).exception();
        if (RUNNING.contains(found.status()) && !background.cancel(id, WAIT) && store.requestCancel(id))
            awaitEnd(id, caller);
        exchange.respond(200, store.find(id, caller).orElseThrow(() -> RetrieveHandler.notFound(id)).envelope());
    }

    /** Polls the store until another node has ended response {@code id}, or {@link #WAIT} has passed. */
    private void awaitEnd(String id, Caller caller) throws InterruptedException {
        var deadline = ctx.clock().instant().plus(WAIT);
        while (ctx.clock().instant().isBefore(deadline)) {
            var now = store.find(id, caller);
            if (now.isEmpty() || !RUNNING.contains(now.get().status())) return;
            Thread.sleep(POLL);
        }
    }
}
