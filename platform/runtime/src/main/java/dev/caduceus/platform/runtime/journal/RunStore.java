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
import dev.caduceus.support.sql.MultiRowInsert;
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
            + "last_event, output, usage_json, error, pending_steer, approval_json, owner, tool_calls_json, resumes, resumed_at, "
            + "resumed_node";
    /** The columns {@link #insert} writes: {@link #COLUMNS} but the resumptions, which only a takeover writes. */
    private static final String INSERTED = "run_id, status, created_at, updated_at, session_id, model, origin, last_seq, "
            + "last_event, output, usage_json, error, pending_steer, approval_json, owner, tool_calls_json";
    private static final String LIVE_STATUSES = "('queued', 'running', 'waiting_for_approval', 'requires_action', 'stopping')";
    private static final String TERMINAL_STATUSES = "('completed', 'failed', 'cancelled', 'interrupted')";

    private final Database database;
    private final ObjectMapper json;
    private final String nodeId;
    private final boolean clustered;
    private final MultiRowInsert.Into stepRows =
            MultiRowInsert.into("run_steps", "run_id, idx, message_json, model_calls, usage_json", "");
    private final MultiRowInsert.Into eventRows =
            MultiRowInsert.into("run_events", "run_id, seq, created_at, event_json", "ON CONFLICT (run_id, seq) DO NOTHING");

    /** @param nodeId the node this process is: written as the owner of every run it starts */
    RunStore(Database database, ObjectMapper json, String nodeId) {
        this(database, json, nodeId, false);
    }

    /** @param clustered whether other nodes share the database (and may take this node's runs over) */
    RunStore(Database database, ObjectMapper json, String nodeId, boolean clustered) {
        this.clustered = clustered;
        this.database = database;
        this.json = json;
        this.nodeId = nodeId;
    }

    String nodeId() {
        return nodeId;
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
    Optional<KeyRow> insert(RunRecord run, String key, String fingerprint, Instant keyNotBefore, String webhookJson,
                            String requestJson) {
        return database.write(sql -> {
            if (key != null) {
                var existing = findKey(sql, key, keyNotBefore);
                if (existing.isPresent()) return existing;
                sql.update("DELETE FROM run_idempotency_keys WHERE idempotency_key = ?", key); // an expired one
                sql.update("INSERT INTO run_idempotency_keys (idempotency_key, fingerprint, run_id, created_at) "
                        + "VALUES (?, ?, ?, ?)", key, fingerprint, run.runId(), run.createdAt().toEpochMilli());
            }
            sql.update("INSERT INTO runs (" + INSERTED + ", node_id, webhook_json, request_json) "
                            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    run.runId(), run.status().wireName(), run.createdAt().toEpochMilli(), run.updatedAt().toEpochMilli(),
                    run.sessionId(), run.model(), run.origin(), run.lastSeq(), run.lastEvent(), run.output(),
                    toJson(run.usage()), run.error(), run.pendingSteer(), toJson(run.approval()), run.owner(),
                    toolCallsJson(run), nodeId, webhookJson, requestJson);
            return Optional.empty();
        });
    }

    /** One message a run saved for resuming ({@code run_steps}). */
    record Step(String runId, int index, Message message, int modelCalls, Usage usage) {}

    /**
     * One group commit: the saved steps, the entries, then each run's latest record; a run that ended drops its stored
     * request, and {@code stepsDone} (ended runs that saved steps) their steps: nothing resumes them. Runs inside the writer's transaction. With several nodes, what comes
     * for runs another node has taken over (this node's lease had expired) is dropped: the new owner numbers and
     * records their events now.
     */
    void write(Sql sql, List<Step> steps, List<JournalEntry> entries, Collection<RunRecord> records,
               Collection<String> stepsDone) {
        if (clustered) {
            var ids = new java.util.LinkedHashSet<String>();
            steps.forEach(s -> ids.add(s.runId()));
            entries.forEach(e -> ids.add(e.runId()));
            records.forEach(r -> ids.add(r.runId()));
            if (ids.isEmpty()) return;
            var lost = java.util.Set.copyOf(sql.query("SELECT run_id FROM runs WHERE run_id IN ("
                    + ids.stream().map(i -> "?").collect(Collectors.joining(", ")) + ") AND node_id IS DISTINCT FROM ?",
                    r -> r.getString(1), java.util.stream.Stream.concat(ids.stream(), java.util.stream.Stream.of(nodeId)).toArray()));
            if (!lost.isEmpty()) {
                steps = steps.stream().filter(s -> !lost.contains(s.runId())).toList();
                entries = entries.stream().filter(e -> !lost.contains(e.runId())).toList();
                records = records.stream().filter(r -> !lost.contains(r.runId())).toList();
                stepsDone = stepsDone.stream().filter(id -> !lost.contains(id)).toList();
            }
        }
        // a batch's steps and events, each in one statement
        stepRows.insert(sql, steps.stream().map(s -> new Object[] {s.runId(), s.index(), toJson(s.message()), s.modelCalls(),
                        toJson(s.usage())}).toList());
        eventRows.insert(sql, entries.stream().map(e -> new Object[] {e.runId(), e.seq(), e.timestamp().toEpochMilli(),
                        toJson(e.event())}).toList());
        for (var r : records)
            sql.update("UPDATE runs SET status = ?, updated_at = ?, last_seq = ?, last_event = ?, output = ?, usage_json = ?, "
                            + "error = ?, pending_steer = ?, approval_json = ?, tool_calls_json = ?"
                            + (r.status().isTerminal() ? ", request_json = NULL" : "") + " WHERE run_id = ?",
                    r.status().wireName(), r.updatedAt().toEpochMilli(), r.lastSeq(), r.lastEvent(), r.output(),
                    toJson(r.usage()), r.error(), r.pendingSteer(), toJson(r.approval()), toolCallsJson(r), r.runId());
        for (var id : stepsDone) sql.update("DELETE FROM run_steps WHERE run_id = ?", id);
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
        return database.read(sql -> events(sql, runId, afterSeq, max));
    }

    private List<JournalEntry> events(Sql sql, String runId, long afterSeq, int max) {
        return sql.query(
                "SELECT seq, created_at, event_json FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                r -> new JournalEntry(runId, r.getLong(1), Instant.ofEpochMilli(r.getLong(2)),
                        fromJson(r.getString(3), RunEvent.class)), runId, afterSeq, max);
    }

    /** Where a run is live: the node executing it, and whether it is live at all. */
    record Placement(String nodeId, boolean live) {}

    /** The run's node and liveness; empty for an unknown run. */
    Optional<Placement> placement(String runId) {
        return database.read(sql -> sql.queryOne("SELECT node_id, status FROM runs WHERE run_id = ?",
                r -> new Placement(r.getString(1), LIVE.contains(r.getString(2))), runId));
    }

    private static final java.util.Set<String> LIVE = java.util.Set.of("queued", "running", "waiting_for_approval", "requires_action", "stopping");

    /** The message of a run that was resumed {@code max} times and whose server stopped again. */
    static String resumeLimitMessage(int max) {
        return "The server stopped while this run was live " + (max + 1) + " times; it was resumed " + max
                + " times and is not resumed again (runs.max_resumes: " + max + ").";
    }

    /**
     * Within the caller's write: the live runs that {@code condition} selects (an SQL predicate over {@code runs} with
     * {@code args}) are taken over by this node: resumed (claimed for this node, their {@code resumes} counted) when
     * {@code policy} allows and they stored their request; a run being stopped ends {@code cancelled}; one resumed
     * {@code max_resumes} times ends {@code failed}; every other one (too old, or not resumable) ends
     * {@code interrupted} as before. A run another node claimed first is left alone, and so are the resumable runs past
     * the first {@code maxResumed} (this node's share).
     */
    RunJournal.TakeOver takeOver(Sql sql, String condition, Instant now, RunJournal.ResumePolicy policy, int maxResumed,
                                 Object... args) {
        var live = sql.query("SELECT run_id, node_id, status, request_json IS NOT NULL, resumes, created_at, "
                        + "(SELECT COALESCE(MAX(seq), 0) FROM run_events e WHERE e.run_id = runs.run_id) FROM runs WHERE status IN "
                        + LIVE_STATUSES + (condition.isEmpty() ? "" : " AND (" + condition + ")"),
                r -> new Orphan(r.getString(1), r.getString(2), r.getString(3), r.getBoolean(4), r.getInt(5),
                        Instant.ofEpochMilli(r.getLong(6)), r.getLong(7)), args);
        var resumed = new ArrayList<String>();
        var interrupted = new ArrayList<String>();
        var failed = new ArrayList<String>();
        var cancelled = new ArrayList<String>();
        for (var o : live) {
            if (o.status().equals("stopping")) {
                end(sql, o, now, "cancelled", new RunEvent.Cancelled("stopped", null, null), null);
                cancelled.add(o.runId());
            } else if (!policy.enabled() || !o.resumable() || o.createdAt().isBefore(now.minus(policy.window()))) {
                end(sql, o, now, "interrupted", new RunEvent.Interrupted(RunJournal.INTERRUPTED_ERROR),
                        RunJournal.INTERRUPTED_ERROR);
                interrupted.add(o.runId());
            } else if (o.resumes() >= policy.maxResumes()) {
                var message = resumeLimitMessage(policy.maxResumes());
                end(sql, o, now, "failed", new RunEvent.Failed("resume_limit", message, null, null, null), message);
                failed.add(o.runId());
            } else if (resumed.size() >= maxResumed) {
                continue; // this node's share is claimed: the other nodes' next sweeps take the rest
            } else if (sql.update("UPDATE runs SET node_id = ?, resumes = resumes + 1, resumed_at = ?, resumed_node = ?, "
                    + "updated_at = ?, status = CASE WHEN status = 'queued' THEN status ELSE 'running' END, "
                    + "approval_json = NULL, tool_calls_json = NULL " // what it waited for died with it; it is asked again
                    + "WHERE run_id = ? AND status IN " + LIVE_STATUSES + " AND node_id IS NOT DISTINCT FROM ?",
                    nodeId, now.toEpochMilli(), nodeId, now.toEpochMilli(), o.runId(), o.nodeId()) == 1) {
                resumed.add(o.runId());
            }
        }
        return new RunJournal.TakeOver(resumed, interrupted, failed, cancelled);
    }

    private record Orphan(String runId, String nodeId, String status, boolean resumable, int resumes, Instant createdAt,
                          long lastSeq) {}

    /** Within the caller's write: ends {@code o} with {@code event} (its next seq) and {@code status}. */
    private void end(Sql sql, Orphan o, Instant now, String status, RunEvent event, String error) {
        long seq = o.lastSeq() + 1;
        sql.update("INSERT INTO run_events (run_id, seq, created_at, event_json) VALUES (?, ?, ?, ?)", o.runId(), seq,
                now.toEpochMilli(), toJson(event));
        sql.update("UPDATE runs SET status = ?, updated_at = ?, last_seq = ?, last_event = ?, error = ?, approval_json = NULL, "
                + "tool_calls_json = NULL, request_json = NULL WHERE run_id = ?", status, now.toEpochMilli(), seq,
                EventTypes.name(event), error, o.runId());
        sql.update("DELETE FROM run_steps WHERE run_id = ?", o.runId());
    }

    /**
     * What run {@code runId} (claimed by this node) had saved: its request, its steps, and from its events the tool
     * calls of its last assistant message that started and did not finish, and whether an approval was pending
     * (asked after its last resumption and not answered). Empty when the run or its request is gone.
     */
    Optional<RunJournal.Saved> saved(String runId) {
        return database.read(sql -> {
            var row = sql.queryOne("SELECT " + COLUMNS + ", request_json FROM runs WHERE run_id = ?",
                    r -> new Object[] {record(r), r.getString(20)}, runId);
            if (row.isEmpty() || row.get()[1] == null) return Optional.<RunJournal.Saved>empty();
            var record = (RunRecord) row.get()[0];
            var request = StoredRequest.read(json, (String) row.get()[1]);
            var interactive = StoredRequest.interactive(json, (String) row.get()[1]);
            var steps = sql.query("SELECT message_json, model_calls, usage_json FROM run_steps WHERE run_id = ? ORDER BY idx",
                    r -> new Step(runId, 0, fromJson(r.getString(1), Message.class), r.getInt(2), fromJson(r.getString(3), Usage.class)),
                    runId);
            var started = new java.util.LinkedHashSet<String>();
            int approvals = 0;
            var steered = new java.util.ArrayList<String>();
            for (var e : events(sql, runId, 0, Integer.MAX_VALUE)) {
                switch (e.event()) {
                    case RunEvent.Steered s -> steered.add(s.text());
                    case RunEvent.ToolCallStarted t -> started.add(t.callId());
                    case RunEvent.ToolCallFinished t -> started.remove(t.callId());
                    case RunEvent.ApprovalRequested a -> approvals++;
                    case RunEvent.ApprovalResolved a -> approvals = Math.max(0, approvals - a.resolved());
                    case RunEvent.Resumed r -> approvals = 0; // the earlier process's requests died with it
                    default -> { }
                }
            }
            // the last assistant message's calls without a saved result are the ones in flight
            var messages = steps.stream().map(Step::message).toList();
            var answered = new java.util.HashSet<String>();
            java.util.List<Message.ToolCallRef> lastCalls = List.of();
            for (var m : messages) {
                if (m.role().equals("assistant") && !m.toolCalls().isEmpty()) {
                    lastCalls = m.toolCalls();
                    answered.clear();
                } else if (m.role().equals("tool") && m.toolCallId() != null) {
                    answered.add(m.toolCallId());
                }
            }
            // steering is saved as a user message once applied: what was accepted beyond those waits still
            long applied = messages.stream().filter(m -> m.role().equals("user")).count();
            var inFlight = new java.util.LinkedHashSet<String>();
            for (var c : lastCalls) if (!answered.contains(c.id()) && started.contains(c.id())) inFlight.add(c.id());
            var pending = approvals > 0 && inFlight.size() == 1 ? java.util.Set.copyOf(inFlight) : java.util.Set.<String>of();
            var last = steps.isEmpty() ? null : steps.getLast();
            return Optional.of(new RunJournal.Saved(record, request, new dev.caduceus.spi.agent.RunContext.Resumption(messages,
                    last == null ? 0 : last.modelCalls(), last == null ? Usage.ZERO : last.usage(), inFlight, pending),
                    interactive, steered.subList((int) Math.min(steered.size(), applied), steered.size())));
        });
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
            sql.update("DELETE FROM run_steps WHERE run_id IN (" + doomed + ")", cutoff);
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
                r.getString(15), toolCalls(r.getString(16)), r.getInt(17) == 0 ? null
                        : new RunRecord.Resumed(r.getInt(17), Instant.ofEpochMilli(r.getLong(18)), r.getString(19)));
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
