package dev.caduceus.platform.host.webhooks;

import dev.caduceus.spi.store.Sql;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The SQL of {@code webhook_deliveries} ({@code V8__webhooks.sql}): a delivery is written in the caller's
 * transaction, claimed by one node's dispatcher with a lease, and finished as delivered, rescheduled or failed.
 * Stateless; every method runs in the transaction it is given.
 */
final class WebhookOutbox {
    private static final String COLUMNS = "id, message_id, event_type, owner, url, target, allow_private, payload, status, "
            + "attempts, created_at, next_attempt_at, last_status, last_error, delivered_at";

    private WebhookOutbox() {}

    /** The statuses of a delivery. */
    static final String PENDING = "pending";
    static final String DELIVERED = "delivered";
    static final String FAILED = "failed";

    /** One delivery as stored. */
    record Row(String id, String messageId, String eventType, String owner, String url, String target,
               boolean allowPrivate, String payload, String status, int attempts, Instant createdAt,
               Instant nextAttemptAt, Integer lastStatus, String lastError, Instant deliveredAt) {}

    /** Adds a pending delivery due now; nothing when this message already goes to {@code url} (a retried commit). */
    static void insert(Sql sql, String table, String id, WebhookEvent event, String url, String target,
                       boolean allowPrivate, String payload, Instant now) {
        sql.update("INSERT INTO " + table + " (id, message_id, event_type, owner, url, target, allow_private, payload, "
                        + "status, attempts, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?) "
                        + "ON CONFLICT (message_id, url) DO NOTHING",
                id, event.messageId(), event.type(), event.owner(), url, target, allowPrivate ? 1 : 0, payload, PENDING,
                now.toEpochMilli(), now.toEpochMilli());
    }

    /**
     * Leases up to {@code limit} pending deliveries due at {@code now} to {@code node} until {@code until}, and
     * returns them: those nobody leases, those whose lease ran out, and those leased by a node that is not live
     * (not in {@code cluster_nodes}: a process killed with its deliveries in flight). On PostgreSQL the outer
     * condition is checked again on each row as it is updated, so two nodes never lease one row.
     */
    static List<Row> claim(Sql sql, String node, Instant now, Instant until, int limit) {
        long at = now.toEpochMilli();
        var free = "(lease_until IS NULL OR lease_until < ? OR (lease_owner <> ? "
                + "AND lease_owner NOT IN (SELECT node_id FROM cluster_nodes)))";
        sql.update("UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ? WHERE id IN ("
                        + "SELECT id FROM webhook_deliveries WHERE status = ? AND next_attempt_at <= ? AND " + free
                        + " ORDER BY next_attempt_at LIMIT ?) AND status = ? AND " + free,
                node, until.toEpochMilli(), PENDING, at, at, node, limit, PENDING, at, node);
        return sql.query("SELECT " + COLUMNS + " FROM webhook_deliveries WHERE lease_owner = ? AND lease_until = ? "
                + "AND status = ?", WebhookOutbox::row, node, until.toEpochMilli(), PENDING);
    }

    /**
     * Records an attempt ({@code attempted} 1) or a decision without one (0): delivered, failed for good, or
     * pending again at {@code next}.
     */
    static void finish(Sql sql, String id, String status, int attempted, Integer httpStatus, String error, Instant now,
                       Instant next) {
        sql.update("UPDATE webhook_deliveries SET status = ?, attempts = attempts + ?, last_status = ?, last_error = ?, "
                        + "delivered_at = ?, next_attempt_at = ?, lease_owner = NULL, lease_until = NULL WHERE id = ?",
                status, attempted, httpStatus, error, status.equals(DELIVERED) ? now.toEpochMilli() : null,
                next == null ? null : next.toEpochMilli(), id);
    }

    /** Frees the leases {@code node} holds: its previous process's, at a start that reuses its id. */
    static void release(Sql sql, String node) {
        sql.update("UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?", node);
    }

    /** How many deliveries wait to be sent. */
    static long pending(Sql sql) {
        return sql.queryOne("SELECT COUNT(*) FROM webhook_deliveries WHERE status = ?", r -> r.getLong(1), PENDING).orElse(0L);
    }

    /**
     * Deliveries newest first: {@code owner}'s (all when null), of {@code status} (any when null), older than
     * the delivery {@code after} (when not null); {@code limit} of them at most.
     */
    static List<Row> list(Sql sql, String owner, String status, String after, int limit) {
        var where = new java.util.ArrayList<String>();
        var args = new java.util.ArrayList<Object>();
        if (owner != null) {
            where.add("owner = ?");
            args.add(owner);
        }
        if (status != null) {
            where.add("status = ?");
            args.add(status);
        }
        if (after != null) {
            where.add("(created_at < (SELECT created_at FROM webhook_deliveries WHERE id = ?) OR (created_at = "
                    + "(SELECT created_at FROM webhook_deliveries WHERE id = ?) AND id < ?))");
            args.add(after);
            args.add(after);
            args.add(after);
        }
        args.add(limit);
        return sql.query("SELECT " + COLUMNS + " FROM webhook_deliveries" + (where.isEmpty() ? "" : " WHERE "
                + String.join(" AND ", where)) + " ORDER BY created_at DESC, id DESC LIMIT ?", WebhookOutbox::row,
                args.toArray());
    }

    /** Makes delivery {@code id} due again at {@code now} (its attempts kept); false for an unknown one. */
    static boolean redeliver(Sql sql, String id, Instant now) {
        return sql.update("UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, lease_owner = NULL, "
                + "lease_until = NULL WHERE id = ?", PENDING, now.toEpochMilli(), id) > 0;
    }

    static Optional<Row> find(Sql sql, String id) {
        return sql.queryOne("SELECT " + COLUMNS + " FROM webhook_deliveries WHERE id = ?", WebhookOutbox::row, id);
    }

    private static Row row(java.sql.ResultSet r) throws java.sql.SQLException {
        return new Row(r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getString(5), r.getString(6),
                r.getInt(7) != 0, r.getString(8), r.getString(9), r.getInt(10), Instant.ofEpochMilli(r.getLong(11)),
                instant(r, 12), integer(r, 13), r.getString(14), instant(r, 15));
    }

    private static Integer integer(java.sql.ResultSet r, int column) throws java.sql.SQLException {
        int value = r.getInt(column);
        return r.wasNull() ? null : value;
    }

    private static Instant instant(java.sql.ResultSet r, int column) throws java.sql.SQLException {
        long value = r.getLong(column);
        return r.wasNull() ? null : Instant.ofEpochMilli(value);
    }
}
