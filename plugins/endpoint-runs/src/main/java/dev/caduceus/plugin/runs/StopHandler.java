package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;

/**
 * {@code POST /v1/runs/{run_id}/stop}: asks a live run to stop; the body is ignored
 * (never read, so even malformed JSON is fine). A run that is not live is a 404, as in Hermes.
 * Thread-safe.
 */
final class StopHandler implements HttpHandler {
    private final PlatformContext ctx;

    StopHandler(PlatformContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void handle(HttpExchange exchange) {
        var id = exchange.pathParam("run_id");
        OwnedRuns.require(ctx.runs(), exchange, id);
        if (!ctx.runs().stop(id)) throw RunErrors.runNotFound(id);
        exchange.respond(200, JsonNodeFactory.instance.objectNode().put("run_id", id).put("status", "stopping"));
    }
}
