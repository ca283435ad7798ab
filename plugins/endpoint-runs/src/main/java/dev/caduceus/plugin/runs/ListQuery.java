package dev.caduceus.plugin.runs;

import dev.caduceus.support.wire.QueryValues;

import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.http.HttpExchange;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The query of {@code GET /v1/runs} as a {@link RunQuery}: {@code status} (wire
 * names, a comma list and/or repeated), {@code session_id}, {@code job_id} (the job's runs: origin
 * {@code job:<id>}), {@code origin} (any origin, {@code <kind>:<id>}; not with {@code job_id}),
 * {@code limit} (1–100, default 20) and {@code cursor}. Each bad value is its own 400. Stateless.
 */
final class ListQuery {
    /** The origin of a scheduled job's runs, {@code job:<job id>} ({@code /api/jobs}). */
    static final String JOB_ORIGIN = "job:";
    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 100;

    private ListQuery() {}

    static RunQuery from(HttpExchange exchange) {
        var statuses = statuses(exchange);
        var limit = limit(exchange);
        var cursor = exchange.query("cursor").filter(c -> !c.isBlank()).map(ListCursor::decode).orElse(null);
        // A named key lists its own runs; the admin key every key's, or one key's with ?owner=NAME.
        var caller = exchange.caller();
        var owner = caller.admin() ? text(exchange, "owner") : caller.name();
        return new RunQuery(statuses, text(exchange, "session_id"), origin(exchange), limit,
                cursor == null ? null : cursor.createdAt(), cursor == null ? null : cursor.runId(), owner);
    }

    private static String origin(HttpExchange exchange) {
        var job = text(exchange, "job_id");
        var origin = text(exchange, "origin");
        if (job != null && origin != null)
            throw RunErrors.badRequest("invalid_origin_filter", "Give job_id or origin, not both", "origin");
        return job != null ? JOB_ORIGIN + job : origin;
    }

    private static Set<RunStatus> statuses(HttpExchange exchange) {
        var statuses = EnumSet.noneOf(RunStatus.class);
        for (var value : exchange.queryAll("status"))
            for (var name : value.split(",", -1)) {
                var wire = name.trim().toLowerCase(Locale.ROOT);
                if (wire.isEmpty()) continue;
                statuses.add(status(wire, value));
            }
        return statuses;
    }

    private static RunStatus status(String wire, String value) {
        for (var status : RunStatus.values()) if (status.wireName().equals(wire)) return status;
        throw RunErrors.badRequest("invalid_status_filter", "Invalid status filter: " + value
                + " (use queued, running, waiting_for_approval, requires_action, stopping, completed, failed, cancelled or interrupted)",
                "status");
    }

    private static int limit(HttpExchange exchange) {
        return QueryValues.limit(exchange, DEFAULT_LIMIT, MAX_LIMIT);
    }

    private static String text(HttpExchange exchange, String name) {
        return QueryValues.text(exchange, name);
    }
}
