package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;

/**
 * {@code POST /v1/runs/{run_id}/approval}: validates the answer (400s), hands it to
 * the host and maps what it did: resolved → 200 {@code hermes.run.approval_response}; no such run →
 * 404; not live → 409 {@code approval_not_active}; nothing pending → 409
 * {@code approval_not_pending}; unknown {@code request_id} → 400 {@code invalid_approval_request}.
 * Thread-safe.
 */
final class ApprovalHandler implements HttpHandler {
    private final PlatformContext ctx;

    ApprovalHandler(PlatformContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void handle(HttpExchange exchange) {
        var id = exchange.pathParam("run_id");
        OwnedRuns.require(ctx.runs(), exchange, id);
        var answer = ApprovalBody.parse(exchange.body());
        switch (ctx.runs().approve(id, answer)) {
            case ApprovalAnswer.Outcome.Resolved r -> exchange.respond(200, JsonNodeFactory.instance.objectNode()
                    .put("object", "hermes.run.approval_response").put("run_id", id)
                    .put("choice", ApprovalBody.wireName(answer.choice())).put("resolved", r.count()));
            case ApprovalAnswer.Outcome.RunNotFound n -> throw RunErrors.runNotFound(id);
            case ApprovalAnswer.Outcome.NotActive n ->
                    throw RunErrors.conflict("approval_not_active", "Run has no active approval session: " + id);
            case ApprovalAnswer.Outcome.NotPending n ->
                    throw RunErrors.conflict("approval_not_pending", "Run has no pending approval: " + id);
            case ApprovalAnswer.Outcome.UnknownRequest u -> throw RunErrors.badRequest("invalid_approval_request",
                    "No pending approval request " + answer.requestId() + " on run " + id, "request_id");
        }
    }
}
