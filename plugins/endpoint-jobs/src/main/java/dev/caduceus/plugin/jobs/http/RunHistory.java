package dev.caduceus.plugin.jobs.http;

import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.plugin.jobs.JobStore;
import dev.caduceus.plugin.jobs.schedule.IsoTimes;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.http.HttpExchange;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@code GET /api/jobs/{job_id}/runs?limit=20&cursor=…}: the job's runs from the
 * host's run records (newest first, the host's keyset order), with what the job's firing rows add:
 * {@code trigger} and {@code scheduled_for}. The cursor is URL-safe base64 of
 * {@code <created_at millis>:<run_id>} of the page's last run. Another key's job is 404 {@code Job not
 * found}, like an unknown one. Thread-safe.
 */
final class RunHistory {
    private final JobStore store;
    private final Supplier<Runs> runs;

    RunHistory(JobStore store, Supplier<Runs> runs) {
        this.store = store;
        this.runs = runs;
    }

    void handle(HttpExchange exchange) {
        var id = JobValidation.jobId(exchange);
        var job = store.find(id).filter(j -> exchange.caller().owns(j.owner())).orElseThrow(JobError::notFound);
        int limit = limit(exchange);
        Instant before = null;
        String beforeRun = null;
        var cursor = exchange.query("cursor").filter(c -> !c.isEmpty());
        if (cursor.isPresent()) {
            var decoded = decode(cursor.get());
            before = Instant.ofEpochMilli(Long.parseLong(decoded[0]));
            beforeRun = decoded[1];
        }
        // The job's runs are its owner's (each firing runs as the owner); another key's run that merely
        // carries this job's origin is not part of the history, for the admin key either.
        var page = runs.get().list(new RunQuery(Set.of(), null, dev.caduceus.plugin.jobs.JobScheduler.origin(id), limit, before, beforeRun, job.owner()));
        var firings = store.firings(id, page.runs().stream().map(RunRecord::runId).toList());
        var answer = JsonNodeFactory.instance.objectNode();
        var list = answer.putArray("runs");
        for (var run : page.runs()) {
            var firing = firings.get(run.runId());
            var o = list.addObject().put("run_id", run.runId()).put("status", run.status().wireName())
                    .put("trigger", firing == null ? "schedule" : firing.trigger())
                    .put("scheduled_for", firing == null ? null : IsoTimes.format(firing.scheduledFor()));
            o.set("created_at", seconds(run.createdAt()));
            o.set("updated_at", seconds(run.updatedAt()));
            o.put("output", run.output()).put("error", run.error());
            if (run.usage() == null) o.putNull("usage");
            else o.putObject("usage").put("input_tokens", run.usage().inputTokens())
                    .put("output_tokens", run.usage().outputTokens()).put("total_tokens", run.usage().totalTokens());
        }
        answer.put("has_more", page.hasMore());
        answer.put("next_cursor", page.hasMore() && !page.runs().isEmpty() ? encode(page.runs().getLast()) : null);
        exchange.respond(200, answer);
    }

    private static int limit(HttpExchange exchange) {
        var text = exchange.query("limit");
        if (text.isEmpty()) return 20;
        try {
            int limit = Integer.parseInt(text.get().trim());
            if (limit >= 1 && limit <= 100) return limit;
        } catch (NumberFormatException ignored) {
            // answered below
        }
        throw JobError.badRequest("Invalid limit");
    }

    static String encode(RunRecord last) {
        var text = last.createdAt().toEpochMilli() + ":" + last.runId();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String[] decode(String cursor) {
        try {
            var parts = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8).split(":", 2);
            if (parts.length == 2 && parts[0].matches("[0-9]{1,15}") && parts[1].matches("run_[0-9a-f]{32}"))
                return parts;
        } catch (IllegalArgumentException ignored) {
            // answered below
        }
        throw JobError.badRequest("Invalid cursor");
    }

    private static DecimalNode seconds(Instant instant) {
        return DecimalNode.valueOf(BigDecimal.valueOf(instant.toEpochMilli(), 3));
    }
}
