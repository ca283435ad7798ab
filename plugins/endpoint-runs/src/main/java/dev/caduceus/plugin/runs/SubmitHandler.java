package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunStart;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;

/**
 * {@code POST /v1/runs} in the pipeline's order: every 400 first (session
 * key, idempotency key, body), then {@code Runs.submit}, which looks the key up (replay or 409
 * conflict) and only then checks admission (503 draining or no model, 429 at the cap), so a replay
 * answers even at the cap. A new run is 202 {@code started}; a replay is 202 with the run's current
 * status and {@code Idempotency-Replayed: true}. The run is detached: nothing here watches the
 * client. Thread-safe.
 */
final class SubmitHandler implements HttpHandler {
    private final PlatformContext ctx;
    private final SubmissionResolver resolver;

    SubmitHandler(PlatformContext ctx) {
        this.ctx = ctx;
        this.resolver = new SubmissionResolver(ctx);
    }

    @Override
    public void handle(HttpExchange exchange) {
        try {
            ctx.runs().checkReady(); // draining and no model answer before the body is read
        } catch (RunRejectedException e) {
            throw e.toApiError().exception();
        }
        var sessionKey = SessionRules.sessionKey(exchange);
        var key = IdempotencyKeyHeader.read(exchange);
        var body = exchange.body();
        var request = resolver.resolve(RunSubmission.parse(body, name -> ctx.deployment().tool(name).isPresent(),
                new dev.caduceus.support.files.FileInputs(ctx.global().workspace(),
                        ctx.service(dev.caduceus.support.services.FileLibrary.class), exchange.caller(),
                        java.util.Optional.of(ctx.outbound()))), sessionKey,
                exchange.caller());
        var options = key.map(k -> RunOptions.journaled(k, Fingerprint.of(body, sessionKey)))
                .orElseGet(RunOptions::journaled);
        var webhook = body.get("webhook");
        if (webhook != null && !webhook.isNull()) {
            try {
                options = options.withWebhook(dev.caduceus.spi.webhook.Webhook.fromJson(webhook));
            } catch (IllegalArgumentException e) {
                throw RunErrors.badRequest("invalid_webhook", e.getMessage(), "webhook");
            }
        }
        RunStart start;
        try {
            start = ctx.runs().start(request, options);
        } catch (RunRejectedException e) {
            throw e.toApiError().exception();
        }
        var id = start.handle().id();
        exchange.header("Location", RunsFamily.BASE + "/" + id);
        if (sessionKey != null) exchange.header(SessionRules.SESSION_KEY, sessionKey);
        var answer = JsonNodeFactory.instance.objectNode().put("run_id", id);
        if (start.replayed()) {
            exchange.header("Idempotency-Replayed", "true");
            answer.put("status", start.status().wireName()).put("replayed", true);
        } else {
            answer.put("status", "started").put("replayed", false);
        }
        exchange.respond(202, answer);
    }
}
