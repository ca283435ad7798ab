package dev.caduceus.plugin.jobs.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.plugin.jobs.JobCommands;
import dev.caduceus.plugin.jobs.JobStore;
import dev.caduceus.spi.http.HttpExchange;
import java.time.Clock;
import java.time.ZoneId;
import java.util.Locale;

/**
 * The job routes except the run history: list, create, fetch, PATCH, DELETE,
 * pause, resume, run now. Validates, calls {@link JobCommands}, answers with the job object.
 * Thread-safe (stateless beyond its collaborators).
 */
final class JobRoutes {
    private final JobStore store;
    private final JobCommands commands;
    private final Clock clock;
    private final ZoneId defaultZone;
    private final dev.caduceus.spi.webhook.Webhooks webhooks;

    JobRoutes(JobStore store, JobCommands commands, Clock clock, ZoneId defaultZone,
              dev.caduceus.spi.webhook.Webhooks webhooks) {
        this.webhooks = webhooks;
        this.store = store;
        this.commands = commands;
        this.clock = clock;
        this.defaultZone = defaultZone;
    }

    /**
     * {@code GET /api/jobs[?include_disabled=true]}: a named key lists its own jobs; the admin key
     * every key's, or one key's with {@code ?owner=NAME}.
     */
    void list(HttpExchange exchange) {
        var include = exchange.query("include_disabled").map(v -> v.trim().toLowerCase(Locale.ROOT))
                .filter(v -> v.equals("1") || v.equals("true") || v.equals("yes") || v.equals("on")).isPresent();
        var caller = exchange.caller();
        var owner = caller.admin() ? exchange.query("owner").filter(v -> !v.isEmpty()).orElse(null) : caller.name();
        var answer = JsonNodeFactory.instance.objectNode();
        var jobs = answer.putArray("jobs");
        store.list(include, owner).forEach(job -> jobs.add(JobView.of(job)));
        exchange.respond(200, answer);
    }

    /** {@code POST /api/jobs}: 201. */
    void create(HttpExchange exchange) {
        var fields = JobValidation.create(JobValidation.body(exchange), defaultZone, clock.instant());
        check(fields.webhook());
        exchange.respond(201, JobView.wrapped(commands.create(exchange.caller(), fields)));
    }

    void get(HttpExchange exchange) {
        var id = JobValidation.jobId(exchange);
        exchange.respond(200, JobView.wrapped(commands.find(exchange.caller(), id).orElseThrow(JobError::notFound)));
    }

    /** {@code PATCH}: the body is validated against the job as stored (a new tz re-reads its schedule). */
    void patch(HttpExchange exchange) {
        var id = JobValidation.jobId(exchange);
        var body = JobValidation.body(exchange);
        var current = commands.find(exchange.caller(), id).orElseThrow(JobError::notFound);
        var patch = JobValidation.patch(body, current, defaultZone, clock.instant());
        check(patch.webhook());
        exchange.respond(200, JobView.wrapped(commands.update(exchange.caller(), id, patch)
                .orElseThrow(JobError::notFound)));
    }

    /** A webhook that may not be used is a 400 before anything changes. */
    private void check(dev.caduceus.spi.webhook.Webhook hook) {
        if (hook == null) return;
        var refusal = webhooks == null ? java.util.Optional.of("webhooks are not enabled on this server")
                : webhooks.refusal(hook);
        if (refusal.isPresent()) throw JobError.badRequest("webhook_not_allowed: " + refusal.get());
    }

    void delete(HttpExchange exchange) {
        var id = JobValidation.jobId(exchange);
        if (!commands.delete(exchange.caller(), id)) throw JobError.notFound();
        exchange.respond(200, JsonNodeFactory.instance.objectNode().put("ok", true));
    }

    void pause(HttpExchange exchange) {
        var id = JobValidation.jobId(exchange);
        exchange.respond(200, JobView.wrapped(commands.pause(exchange.caller(), id).orElseThrow(JobError::notFound)));
    }

    void resume(HttpExchange exchange) {
        var id = JobValidation.jobId(exchange);
        exchange.respond(200, JobView.wrapped(commands.resume(exchange.caller(), id).orElseThrow(JobError::notFound)));
    }

    void runNow(HttpExchange exchange) {
        var id = JobValidation.jobId(exchange);
        exchange.respond(200, JobView.wrapped(commands.runNow(exchange.caller(), id).orElseThrow(JobError::notFound)));
    }
}
