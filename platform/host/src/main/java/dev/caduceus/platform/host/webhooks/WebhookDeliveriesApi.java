package dev.caduceus.platform.host.webhooks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpExchange;
import java.time.Clock;
import java.time.Instant;
import java.util.Set;

/**
 * {@code /api/webhooks/deliveries}: the deliveries of the caller's events (the admin key sees all), newest first,
 * with their status, attempts, last error and next attempt; one of them with its payload; and
 * {@code POST …/{id}/redeliver}, which makes one due again (the same {@code webhook-id}). Thread-safe.
 */
public final class WebhookDeliveriesApi {
    public static final String BASE = "/api/webhooks/deliveries";
    private static final Set<String> STATUSES = Set.of(WebhookOutbox.PENDING, WebhookOutbox.DELIVERED, WebhookOutbox.FAILED);
    private static final int DEFAULT_LIMIT = 20;
    private static final int MAX_LIMIT = 100;

    private final Database database;
    private final WebhookDispatcher dispatcher;
    private final ObjectMapper json;
    private final Clock clock;

    public WebhookDeliveriesApi(Database database, WebhookDispatcher dispatcher, ObjectMapper json, Clock clock) {
        this.database = database;
        this.dispatcher = dispatcher;
        this.json = json;
        this.clock = clock;
    }

    /** {@code GET /api/webhooks/deliveries?status=&limit=&after=}. */
    public void list(HttpExchange exchange) {
        var status = exchange.query("status").orElse(null);
        if (status != null && !STATUSES.contains(status))
            throw ApiError.badRequest("invalid_status", "status must be pending, delivered or failed", "status").exception();
        int limit = limit(exchange);
        var after = exchange.query("after").orElse(null);
        var owner = ownerFilter(exchange);
        if (after != null && visible(exchange, after) == null)
            throw ApiError.badRequest("invalid_after", "after names no delivery of yours", "after").exception();
        var rows = database.read(sql -> WebhookOutbox.list(sql, owner, status, after, limit + 1));
        var answer = json.createObjectNode().put("object", "list");
        var data = answer.putArray("data");
        rows.stream().limit(limit).forEach(row -> data.add(view(row, false)));
        answer.put("has_more", rows.size() > limit);
        if (!data.isEmpty()) answer.put("last_id", data.get(data.size() - 1).path("id").asText());
        exchange.respond(200, answer);
    }

    /** {@code GET /api/webhooks/deliveries/{delivery_id}}, with its payload. */
    public void get(HttpExchange exchange) {
        var row = visible(exchange, exchange.pathParam("delivery_id"));
        if (row == null) throw notFound(exchange.pathParam("delivery_id"));
        exchange.respond(200, view(row, true));
    }

    /** {@code POST /api/webhooks/deliveries/{delivery_id}/redeliver}: due again now; answers the delivery. */
    public void redeliver(HttpExchange exchange) {
        var id = exchange.pathParam("delivery_id");
        if (visible(exchange, id) == null) throw notFound(id);
        database.write(sql -> WebhookOutbox.redeliver(sql, id, clock.instant()));
        dispatcher.wake();
        exchange.respond(200, view(database.read(sql -> WebhookOutbox.find(sql, id)).orElseThrow(), false));
    }

    private WebhookOutbox.Row visible(HttpExchange exchange, String id) {
        var row = database.read(sql -> WebhookOutbox.find(sql, id)).orElse(null);
        if (row == null) return null;
        var owner = ownerFilter(exchange);
        return owner == null || owner.equals(row.owner()) ? row : null;
    }

    private static String ownerFilter(HttpExchange exchange) {
        return exchange.caller().admin() ? null : exchange.caller().name();
    }

    private static int limit(HttpExchange exchange) {
        var text = exchange.query("limit").orElse(null);
        if (text == null) return DEFAULT_LIMIT;
        try {
            int limit = Integer.parseInt(text);
            if (limit >= 1 && limit <= MAX_LIMIT) return limit;
        } catch (NumberFormatException e) {
            // below
        }
        throw ApiError.badRequest("invalid_limit", "limit must be an integer from 1 to " + MAX_LIMIT, "limit").exception();
    }

    private static dev.caduceus.spi.http.HttpStatusException notFound(String id) {
        return ApiError.notFound("delivery_not_found", "No webhook delivery " + id).exception();
    }

    private ObjectNode view(WebhookOutbox.Row row, boolean payload) {
        var node = json.createObjectNode().put("id", row.id()).put("object", "webhook.delivery")
                .put("webhook_id", row.messageId()).put("event_type", row.eventType()).put("url", row.url())
                .put("status", row.status()).put("attempts", row.attempts()).put("created_at", seconds(row.createdAt()));
        putSeconds(node, "next_attempt_at", row.nextAttemptAt());
        putSeconds(node, "delivered_at", row.deliveredAt());
        if (row.lastStatus() == null) node.putNull("last_status"); else node.put("last_status", row.lastStatus());
        if (row.lastError() == null) node.putNull("last_error"); else node.put("last_error", row.lastError());
        if (payload) {
            try {
                node.set("payload", json.readTree(row.payload()));
            } catch (java.io.IOException e) {
                node.put("payload", row.payload());
            }
        }
        return node;
    }

    private static long seconds(Instant at) {
        return at.getEpochSecond();
    }

    private static void putSeconds(ObjectNode node, String field, Instant at) {
        if (at == null) node.putNull(field); else node.put(field, at.getEpochSecond());
    }
}
