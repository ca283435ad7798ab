package dev.caduceus.platform.runtime.spend;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpExchange;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code GET /api/usage}: what model calls used and cost, summed per key, UTC day, route and deployment (or per the
 * {@code group_by} fields), with the totals. A named key sees only its own spend; the admin key sees every key's and
 * may filter by {@code key}. Filters: {@code from} and {@code to} (UTC days, inclusive; default the last 30 days),
 * {@code route}, {@code deployment}. This node's unwritten sums are written first, so the answer includes them.
 * Thread-safe.
 */
public final class UsageApi {
    public static final String PATH = "/api/usage";
    private static final List<String> GROUPS = List.of("day", "key", "route", "deployment");
    private static final int MAX_DAYS = 366;
    private static final int MAX_ROWS = 10_000;

    private final Database database;
    private final SpendLedger ledger;
    private final ObjectMapper json;
    private final Clock clock;

    public UsageApi(Database database, SpendLedger ledger, ObjectMapper json, Clock clock) {
        this.database = database;
        this.ledger = ledger;
        this.json = json;
        this.clock = clock;
    }

    /** {@code GET /api/usage?key=&route=&deployment=&from=&to=&group_by=}. */
    public void usage(HttpExchange exchange) {
        var caller = exchange.caller();
        var key = exchange.query("key").orElse(null);
        if (!caller.admin()) {
            if (key != null && !key.equals(caller.name()))
                throw ApiError.notFound("key_not_found", "No usage of key '" + key + "' is visible to this key").exception();
            key = caller.name();
        }
        var today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
        var to = day(exchange, "to", today);
        var from = day(exchange, "from", to.minusDays(29));
        if (from.isAfter(to)) throw ApiError.badRequest("invalid_range", "from must not be after to", "from").exception();
        if (from.plusDays(MAX_DAYS).isBefore(to))
            throw ApiError.badRequest("invalid_range", "from and to may be at most " + MAX_DAYS + " days apart", "from").exception();
        var groups = groups(exchange);
        var route = exchange.query("route").orElse(null);
        var deployment = exchange.query("deployment").orElse(null);

        var where = new StringBuilder(" WHERE day >= ? AND day <= ?");
        var args = new ArrayList<Object>(List.of(from.toString(), to.toString()));
        if (key != null) filter(where, args, "owner", key);
        if (route != null) filter(where, args, "route", route);
        if (deployment != null) filter(where, args, "deployment", deployment);
        var columns = groups.stream().map(g -> g.equals("key") ? "owner" : g).toList();
        var select = String.join(", ", columns);
        var sums = "SUM(calls), SUM(input_tokens), SUM(cached_tokens), SUM(output_tokens), SUM(reasoning_tokens), SUM(cost_pico)";
        var query = "SELECT " + (select.isEmpty() ? "" : select + ", ") + sums + " FROM model_usage" + where
                + (select.isEmpty() ? "" : " GROUP BY " + select + " ORDER BY " + select) + " LIMIT " + (MAX_ROWS + 1);
        ledger.flush();
        var rows = database.read(sql -> sql.query(query, r -> {
            var row = json.createObjectNode();
            int i = 1;
            for (var group : groups) row.put(group, r.getString(i++));
            long calls = r.getLong(i);
            if (calls == 0 && r.wasNull()) return null; // no row at all (the totals of nothing)
            return sumsInto(row, calls, r.getLong(i + 1), r.getLong(i + 2), r.getLong(i + 3), r.getLong(i + 4), r.getLong(i + 5));
        }, args.toArray()));
        var answer = json.createObjectNode().put("object", "list").put("from", from.toString()).put("to", to.toString());
        answer.putArray("group_by").addAll(groups.stream().map(json.getNodeFactory()::textNode).toList());
        var data = answer.putArray("data");
        long[] total = new long[6];
        for (var row : rows.stream().filter(java.util.Objects::nonNull).limit(MAX_ROWS).toList()) {
            data.add(row);
            total[0] += row.path("calls").asLong();
            total[1] += row.path("input_tokens").asLong();
            total[2] += row.path("cached_tokens").asLong();
            total[3] += row.path("output_tokens").asLong();
            total[4] += row.path("reasoning_tokens").asLong();
            total[5] += row.path("cost_pico").asLong();
            row.remove("cost_pico");
        }
        answer.put("has_more", rows.size() > MAX_ROWS);
        answer.set("total", sumsInto(json.createObjectNode(), total[0], total[1], total[2], total[3], total[4], total[5])
                .without("cost_pico"));
        exchange.respond(200, answer);
    }

    private static ObjectNode sumsInto(ObjectNode node, long calls, long input, long cached, long output, long reasoning,
                                       long costPico) {
        return node.put("calls", calls).put("input_tokens", input).put("cached_tokens", cached).put("output_tokens", output)
                .put("reasoning_tokens", reasoning).put("cost_usd", new BigDecimal(costPico).movePointLeft(12).stripTrailingZeros())
                .put("cost_pico", costPico);
    }

    private static void filter(StringBuilder where, List<Object> args, String column, String value) {
        where.append(" AND ").append(column).append(" = ?");
        args.add(value);
    }

    private static LocalDate day(HttpExchange exchange, String param, LocalDate fallback) {
        var text = exchange.query(param).orElse(null);
        if (text == null || text.isBlank()) return fallback;
        try {
            return LocalDate.parse(text.strip());
        } catch (DateTimeParseException e) {
            throw ApiError.badRequest("invalid_date", param + " must be a UTC day as YYYY-MM-DD: " + text, param).exception();
        }
    }

    /** {@code group_by}: a comma list of day, key, route, deployment (default all four, the stored rows). */
    private static List<String> groups(HttpExchange exchange) {
        var text = exchange.query("group_by").orElse(null);
        if (text == null) return GROUPS;
        Set<String> chosen = new LinkedHashSet<>();
        for (var part : text.split(",")) {
            var group = part.strip();
            if (group.isEmpty()) continue;
            if (!GROUPS.contains(group))
                throw ApiError.badRequest("invalid_group_by", "group_by takes day, key, route and deployment, not " + group,
                        "group_by").exception();
            chosen.add(group);
        }
        return GROUPS.stream().filter(chosen::contains).toList();
    }
}
