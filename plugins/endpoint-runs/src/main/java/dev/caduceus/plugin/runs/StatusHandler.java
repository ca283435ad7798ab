package dev.caduceus.plugin.runs;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;

/** {@code GET /v1/runs/{run_id}}: the run's status object, or 404. Thread-safe. */
final class StatusHandler implements HttpHandler {
    private final PlatformContext ctx;

    StatusHandler(PlatformContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void handle(HttpExchange exchange) {
        var id = exchange.pathParam("run_id");
        var record = OwnedRuns.require(ctx.runs(), exchange, id);
        exchange.respond(200, RunView.of(record));
    }
}
