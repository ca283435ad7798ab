package dev.caduceus.platform.runtime.journal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.store.Sql;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The SQL of the durable run tables ({@code V2__runs.sql}, {@code V4__run_owners.sql}, {@code V6__run_origin.sql}, {@code V7__run_tool_calls.sql}): status rows
 * (with the key that owns each run), events, idempotency keys.
 * Events and records are stored as JSON with the SPI's logical type names. Thread-safe (stateless
 * over the {@link Database}); the {@code Sql}-taking methods run inside the caller's transaction.
 */
final class RunStore {
    private static final String COLUMNS = "run_id, status, created_at, updated_at, session_id, model, origin, last_seq, "
            + "last_event, output, usage_json, error, pending_steer, approval_json, owner, tool_calls_json";
    private static final String LIVE_STATUSES = "('queued', 'running', 'waiting_for_approval', 'requires_action', 'stopping')";
    private static final String TERMINAL_STATUSES = "('completed', 'failed', 'cancelled', 'interrupted')";

    private final Database database;
    private final ObjectMapper json;
    private final String nodeId;

    /** @param nodeId the node this process is: written as the owner of every run it starts */
    RunStore(Database database, ObjectMapper json, String nodeId) {
        this.database = database;
        this.json = json;
        this.nodeId = nodeId;
    }

    /** An idempotency key as recorded. */
    record KeyRow(String fingerprint, String runId) {}

    /** The key's row if its run was updated at or after {@code notBefore} (older keys have expired). */
    Optional<KeyRow> findKey(String key, Instant notBefore) {
        return database.read(sql -> findKey(sql, key, notBefore));
    }

    private static Optional<KeyRow> findKey(Sql sql, String key, Instant notBefore) {
        return sql.queryOne("SELECT k.fingerprint, k.run_id FROM run_idempotency_keys k JOIN runs r ON r.run_id = k.run_id "
                        + "WHERE k.idempotency_key = ? AND r.updated_at >= ?",
                r -> new KeyRow(r.getString(1), r.getString(2)), key, notBefore.toEpochMilli());
    }

    /**
     * Inserts a new run's row, and its idempotency key when given, in one transaction. Returns the
     * key's existing row instead (and inserts nothing) when a live key was recorded meanwhile.
     */
    Optional<KeyRow> insert(RunRecord run, String key, String fingerprint, Instant keyNotBefore, String webhookJson) {
        return database.write(sql -> {
            if (key != null) {
                var existing = findKey(sql, key, keyNotBefore);
                if (existing.isPresent()) return existing;
                sql.update("DELETE FROM run_idempotency_keys WHERE idempotency_key = ?", key); // an expired one
                sql.update("INSERT INTO run_idempotency_keys (idempotency_key, fingerprint, run_id, created_at) "
                        + "VALUES (?, ?, ?, ?)", key, fingerprint, run.runId(), run.createdAt().toEpochMilli());
            }
            sql.update("INSERT INTO runs (" + COLUMNS + ", node_id, webhook_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    run.runId(), run.status().wireName(), run.createdAt().toEpochMilli(), run.updatedAt().toEpochMilli(),
                    run.sessionId(), run.model(), run.origin(), run.lastSeq(), run.lastEvent(), run.output(),
                    toJson(run.usage()), run.error(), run.pendingSteer(), toJson(run.approval()), run.owner(),
                    toolCallsJson(run), nodeId, webhookJson);
            return Optional.empty();
        });
    }

    /** One group commit: the entries, then each run's latest record. Runs inside the writer's transaction. */
    void write(Sql sql, List<JournalEntry> entries, Collection<RunRecord> records) {
        for (var e : entries)
            sql.update("INSERT INTO run_events (run_id, seq, created_at, event_json) VALUES (?, ?, ?, ?) "
                            + "ON CONFLICT (run_id, seq) DO NOTHING",
                    e.runId(), e.seq(), e.timestamp().toEpochMilli(), toJson(e.event()));
        for (var r : records)
            sql.update("UPDATE runs SET status = ?, updated_at = ?, last_seq = ?, last_event = ?, output = ?, usage_json = ?, "
                            + "error = ?, pending_steer = ?, approval_json = ?, tool_calls_json = ? WHERE run_id = ?",
                    r.status().wireName(), r.updatedAt().toEpochMilli(), r.lastSeq(), r.lastEvent(), r.output(),
                    toJson(r.usage()), r.error(), r.pendingSteer(), toJson(r.approval()), toolCallsJson(r), r.runId());
    }

    Optional<RunRecord> record(String runId) {
        return database.read(sql -> sql.queryOne("SELECT " + COLUMNS + " FROM runs WHERE run_id = ?", this::record, runId));
    }

    RunQuery.Page list(RunQuery q) {
        var where = new ArrayList<String>();
        var args = new ArrayList<Object>();
        if (!q.statuses().isEmpty()) {
            where.add("status IN (" + q.statuses().stream().map(s -> "?").collect(Collectors.joining(", ")) + ")");
            q.statuses().stream().map(RunStatus::wireName).sorted().forEach(args::add);
        }
        if (q.sessionId() != null) {
            where.add("session_id = ?");
            args.add(q.sessionId());
        }
        if (q.origin() != null) {
            where.add("origin = ?");
            args.add(q.origin());
        }
        if (q.owner() != null) {
            where.add("owner = ?");
            args.add(q.owner());
        }
        if (q.beforeCreatedAt() != null) {
            where.add("(created_at < ? OR (created_at = ? AND run_id < ?))");
            args.add(q.beforeCreatedAt().toEpochMilli());
            args.add(q.beforeCreatedAt().toEpochMilli());
            args.add(q.beforeRunId());
        }
        args.add(q.limit() + 1);
        var sqlText = "SELECT " + COLUMNS + " FROM runs" + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where))
                + " ORDER BY created_at DESC, run_id DESC LIMIT ?";
        var rows = database.read(sql -> sql.query(sqlText, this::record, args.toArray()));
        boolean more = rows.size() > q.limit();
        return new RunQuery.Page(more ? rows.subList(0, q.limit()) : rows, more);
    }

    /** Up to {@code max} committed events of a run after {@code afterSeq}. */
    List<JournalEntry> events(String runId, long afterSeq, int max) {
        return database.read(sql -> sql.query(
                "SELECT seq, created_at, event_json FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                r -> new JournalEntry(runId, r.getLong(1), Instant.ofEpochMilli(r.getLong(2)),
                        fromJson(r.getString(3), RunEvent.class)), runId, afterSeq, max));
    }

    /** Where a run is live: the node executing it, and whether it is live at all. */
    record Placement(String nodeId, boolean live) {}

    /** The run's node and liveness; empty for an unknown run. */
    Optional<Placement> placement(String runId) {
        return database.read(sql -> sql.queryOne("SELECT node_id, status FROM runs WHERE run_id = ?",
                r -> new Placement(r.getString(1), LIVE.contains(r.getString(2))), runId));
    }

    private static final java.util.Set<String> LIVE = java.util.Set.of("queued", "running", "waiting_for_approval", "requires_action", "stopping");

    /**
     * Boot recovery: every run not in a terminal status becomes {@code interrupted} with a final
     * {@link RunEvent.Interrupted} event. Returns the runs recovered.
     */
    List<String> interruptLiveRuns(Instant now) {
        return database.write(sql -> interrupt(sql, "", now));
    }

    /**
     * Within the caller's write: the live runs that {@code condition} (an SQL predicate over {@code runs},
     * with {@code args}) selects become {@code interrupted}, each with a final interrupted event. Returns
     * their ids.
     */
    List<String> interrupt(Sql sql, String condition, Instant now, Object... args) {
        {
            var live = sql.query("SELECT run_id, (SELECT COALESCE(MAX(seq), 0) FROM run_events e WHERE e.run_id = runs.run_id) "
                    + "FROM runs WHERE status IN " + LIVE_STATUSES + (condition.isEmpty() ? "" : " AND (" + condition + ")"),
                    r -> new Object[] {r.getString(1), r.getLong(2)}, args);
            var ids = new ArrayList<String>();
            for (var row : live) {
                String id = (String) row[0];
                long seq = (Long) row[1] + 1;
                sql.update("INSERT INTO run_events (run_id, seq, created_at, event_json) VALUES (?, ?, ?, ?)", id, seq,
                        now.toEpochMilli(), toJson(new RunEvent.Interrupted(RunJournal.INTERRUPTED_ERROR)));
                sql.update("UPDATE runs SET status = 'interrupted', updated_at = ?, last_seq = ?, last_event = 'interrupted', "
                        + "error = ?, approval_json = NULL, tool_calls_json = NULL WHERE run_id = ?", now.toEpochMilli(), seq, RunJournal.INTERRUPTED_ERROR, id);
                ids.add(id);
            }
            return ids;
        }
    }

    /**
     * Retention: deletes terminal runs last updated before {@code runsBefore} with their events and
     * keys, and idempotency keys whose run was last updated before {@code keysBefore}. Returns the
     * number of runs deleted.
     */
    int prune(Instant runsBefore, Instant keysBefore) {
        return database.write(sql -> {
            long cutoff = runsBefore.toEpochMilli();
            String doomed = "SELECT run_id FROM runs WHERE status IN " + TERMINAL_STATUSES + " AND updated_at < ?";
            sql.update("DELETE FROM run_events WHERE run_id IN (" + doomed + ")", cutoff);
            sql.update("DELETE FROM run_idempotency_keys WHERE run_id IN (" + doomed + ") OR run_id IN "
                    + "(SELECT run_id FROM runs WHERE updated_at < ?)", cutoff, keysBefore.toEpochMilli());
            return sql.update("DELETE FROM runs WHERE status IN " + TERMINAL_STATUSES + " AND updated_at < ?", cutoff);
        });
    }

    private RunRecord record(ResultSet r) throws SQLException {
        return new RunRecord(r.getString(1), RunStatus.valueOf(r.getString(2).toUpperCase(Locale.ROOT)),
                Instant.ofEpochMilli(r.getLong(3)), Instant.ofEpochMilli(r.getLong(4)), r.getString(5), r.getString(6),
                r.getString(7), r.getLong(8), r.getString(9), r.getString(10), fromJson(r.getString(11), Usage.class),
                r.getString(12), r.getString(13), (RunEvent.ApprovalRequested) fromJson(r.getString(14), RunEvent.class),
                r.getString(15), toolCalls(r.getString(16)));
    }

    private String toolCallsJson(RunRecord run) {
        return run.toolCalls().isEmpty() ? null : toJson(run.toolCalls());
    }

    private List<Message.ToolCallRef> toolCalls(String text) {
        if (text == null) return List.of();
        try {
            return json.readValue(text, new com.fasterxml.jackson.core.type.TypeReference<List<Message.ToolCallRef>>() {});
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("unreadable tool_calls_json", e);
        }
    }

    private String toJson(Object value) {
        if (value == null) return null;
        try {
            return value instanceof RunEvent ? json.writerFor(RunEvent.class).writeValueAsString(value)
                    : json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot serialize " + value.getClass().getSimpleName(), e);
        }
    }

    private <T> T fromJson(String text, Class<T> type) {
        if (text == null) return null;
        try {
            return json.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("corrupt journal JSON for " + type.getSimpleName() + ": " + e.getOriginalMessage(), e);
        }
    }
}
