package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.agent.SteerOutcome;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;

/**
 * {@code POST /v1/runs/{run_id}/steer}: queues guidance for a running run and maps
 * the host's answer: accepted → 200 {@code hermes.run.steer}; no such run → 404; status not exactly
 * {@code running} → 409 {@code run_not_accepting_steer}; refused → 409 {@code steer_not_accepted};
 * the host failing → 500 {@code steer_failed} (the exception is logged, never shown). Thread-safe.
 */
final class SteerHandler implements HttpHandler {
    private static final System.Logger LOG = System.getLogger(SteerHandler.class.getName());

    private final PlatformContext ctx;

    SteerHandler(PlatformContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void handle(HttpExchange exchange) {
        var id = exchange.pathParam("run_id");
        OwnedRuns.require(ctx.runs(), exchange, id);
        var text = SteerText.from(exchange.body());
        SteerOutcome outcome;
        try {
            outcome = ctx.runs().steer(id, text);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "Steering run " + id + " failed (request " + exchange.requestId() + ")", e);
            throw new ApiError(500, "Steering the run failed: " + id, ApiError.SERVER, null, "steer_failed")
                    .withHeader("x-should-retry", "false").exception();
        }
        switch (outcome) {
            case ACCEPTED -> exchange.respond(200, JsonNodeFactory.instance.objectNode()
                    .put("object", "hermes.run.steer").put("run_id", id).put("accepted", true));
            case RUN_NOT_FOUND -> throw RunErrors.runNotFound(id);
            case NOT_RUNNING -> throw RunErrors.conflict("run_not_accepting_steer",
                    "Run is not currently accepting steer input: " + id);
            case NOT_ACCEPTED -> throw RunErrors.conflict("steer_not_accepted", "Run did not accept steer text: " + id);
        }
    }
}
