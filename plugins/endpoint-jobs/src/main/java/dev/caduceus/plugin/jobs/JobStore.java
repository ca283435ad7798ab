package dev.caduceus.plugin.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.plugin.jobs.schedule.ScheduleJson;
import dev.caduceus.spi.store.PluginDatabase;
import dev.caduceus.spi.store.Sql;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * The {@code jobs} and {@code job_runs} tables (migrations {@code V1__jobs.sql}, {@code V2__job_owners.sql}). Edits from HTTP are
 * read-modify-write of the whole row in one write transaction; the scheduler's changes touch only its
 * own columns and are compare-and-set updates (the row must still show the {@code next_run_at} or the
 * run the scheduler saw), so a claim holds however many loops, processes or nodes (one PostgreSQL
 * database shared by a cluster; each write is serializable there) share the database. A
 * job's {@code owner} is written once, on insert; the HTTP side reads and edits a job only through a
 * {@code visible} test (the caller's tenancy), applied inside the same transaction.
 * Thread-safe (every method is one database call).
 */
public final class JobStore {
    private static final String COLUMNS = "id, name, prompt, schedule_text, tz, schedule, skills, skill, deliver, "
            + "repeat_times, repeat_completed, enabled, state, paused_at, paused_reason, created_at, next_run_at, "
            + "next_trigger, last_run_at, last_status, last_error, last_run_id, current_run_id, updated_at, webhook_json, owner";
    private static final String SET_ALL = "name = ?, prompt = ?, schedule_text = ?, tz = ?, schedule = ?, skills = ?, "
            + "skill = ?, deliver = ?, repeat_times = ?, repeat_completed = ?, enabled = ?, state = ?, paused_at = ?, "
            + "paused_reason = ?, created_at = ?, next_run_at = ?, next_trigger = ?, last_run_at = ?, last_status = ?, "
            + "last_error = ?, last_run_id = ?, current_run_id = ?, updated_at = ?, webhook_json = ?";
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {};

    private final PluginDatabase db;
    private final ObjectMapper json;
    private final dev.caduceus.spi.webhook.Webhooks webhooks;

    public JobStore(PluginDatabase db, ObjectMapper json) {
        this(db, json, null);
    }

    /** @param webhooks told of each settled firing ({@code job.run.completed}, {@code job.run.failed}), or null */
    public JobStore(PluginDatabase db, ObjectMapper json, dev.caduceus.spi.webhook.Webhooks webhooks) {
        this.db = db;
        this.json = json;
        this.webhooks = webhooks;
    }

    // ---- HTTP side --------------------------------------------------------------------------

    public void insert(Job job) {
        db.write(sql -> sql.update("INSERT INTO jobs (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                + "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", values(job, true)));
    }

    public Optional<Job> find(String id) {
        return db.read(sql -> find(sql, id));
    }

    /**
     * Jobs ordered by {@code next_run_at} (unscheduled last), then creation; only enabled ones unless
     * asked; only {@code owner}'s, or every owner's when {@code owner} is null.
     */
    public List<Job> list(boolean includeDisabled, String owner) {
        var where = new ArrayList<String>();
        if (!includeDisabled) where.add("enabled = 1");
        if (owner != null) where.add("owner = ?");
        var clause = where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where);
        Object[] args = owner == null ? new Object[0] : new Object[] {owner};
        return db.read(sql -> sql.query("SELECT " + COLUMNS + " FROM jobs" + clause
                + " ORDER BY CASE WHEN next_run_at IS NULL THEN 1 ELSE 0 END, next_run_at, created_at, id", this::map,
                args));
    }

    /**
     * Applies {@code change} to the stored job and stores the result, in one write transaction; empty
     * when the job does not exist or is not {@code visible}. {@code change} must be quick and pure, and
     * cannot change the owner.
     */
    public Optional<Job> modify(String id, Predicate<Job> visible, UnaryOperator<Job> change) {
        return db.write(sql -> {
            var current = find(sql, id).filter(visible);
            if (current.isEmpty()) return Optional.<Job>empty();
            var next = change.apply(current.get());
            var args = values(next, false);
            sql.update("UPDATE jobs SET " + SET_ALL + " WHERE id = ?", args);
            return Optional.of(next);
        });
    }

    /** Deletes the job and its firing rows if it is {@code visible}; returns the job as it was, or empty. */
    public Optional<Job> delete(String id, Predicate<Job> visible) {
        return db.write(sql -> {
            var job = find(sql, id).filter(visible);
            if (job.isPresent()) {
                sql.update("DELETE FROM job_runs WHERE job_id = ?", id);
                sql.update("DELETE FROM jobs WHERE id = ?", id);
            }
            return job;
        });
    }

    /** What {@code job_runs} knows about these runs of one job: run id → firing. */
    public Map<String, Firing> firings(String jobId, List<String> runIds) {
        if (runIds.isEmpty()) return Map.of();
        var marks = String.join(", ", java.util.Collections.nCopies(runIds.size(), "?"));
        var args = new Object[runIds.size() + 1];
        args[0] = jobId;
        for (int i = 0; i < runIds.size(); i++) args[i + 1] = runIds.get(i);
        return db.read(sql -> {
            var result = new HashMap<String, Firing>();
            sql.query("SELECT run_id, trigger, scheduled_for, fired_at FROM job_runs WHERE job_id = ? AND run_id IN ("
                    + marks + ")", row -> result.put(row.getString(1),
                    new Firing(row.getString(2), Instant.ofEpochMilli(row.getLong(3)), Instant.ofEpochMilli(row.getLong(4)))),
                    args);
            return result;
        });
    }

    /** One firing that started a run. */
    public record Firing(String trigger, Instant scheduledFor, Instant firedAt) {}

    // ---- scheduler side ---------------------------------------------------------------------

    /** Enabled jobs whose {@code next_run_at} is at or before {@code now}, earliest first. */
    public List<Job> due(Instant now) {
        return db.read(sql -> sql.query("SELECT " + COLUMNS + " FROM jobs WHERE enabled = 1 AND next_run_at <= ? "
                + "ORDER BY next_run_at, id", this::map, now.toEpochMilli()));
    }

    /** The earliest {@code next_run_at} of an enabled job, if any. */
    public Optional<Instant> earliestDue() {
        return db.read(sql -> sql.queryOne("SELECT next_run_at FROM jobs WHERE enabled = 1 AND next_run_at IS NOT NULL "
                + "ORDER BY next_run_at LIMIT 1", row -> instant(row, "next_run_at")));
    }

    /** Jobs with a live (or starting) run. */
    public List<Job> live() {
        return db.read(sql -> sql.query("SELECT " + COLUMNS + " FROM jobs WHERE current_run_id IS NOT NULL", this::map));
    }

    /**
     * Claims the firing due at {@code due}: moves {@code next_run_at} to {@code next} (null: none) and
     * marks a run as starting, only if the job is still enabled, idle and due at {@code due}. True
     * when this caller won the firing.
     */
    public boolean claim(String id, Instant due, Instant next, Instant now) {
        return db.write(sql -> sql.update("UPDATE jobs SET next_run_at = ?, state = ?, current_run_id = ?, "
                + "next_trigger = ?, updated_at = ? WHERE id = ? AND next_run_at = ? AND enabled = 1 "
                + "AND current_run_id IS NULL", millis(next), Job.RUNNING, Job.PENDING, "schedule", now.toEpochMilli(),
                id, due.toEpochMilli())) == 1;
    }

    /** Records the run a claimed firing started, and its history row; false when the job is gone. */
    public boolean started(String id, String runId, String trigger, Instant scheduledFor, Instant firedAt) {
        return db.write(sql -> {
            if (sql.update("UPDATE jobs SET current_run_id = ?, updated_at = ? WHERE id = ? AND current_run_id = ?",
                    runId, firedAt.toEpochMilli(), id, Job.PENDING) != 1) return false;
            sql.update("INSERT INTO job_runs (run_id, job_id, trigger, scheduled_for, fired_at) VALUES (?, ?, ?, ?, ?)",
                    runId, id, trigger, scheduledFor.toEpochMilli(), firedAt.toEpochMilli());
            return true;
        });
    }

    /** Gives a claimed firing back (no free run slot): due again at {@code due} with its trigger. */
    public void unclaim(String id, Instant due, String trigger, Instant now) {
        db.write(sql -> sql.update("UPDATE jobs SET next_run_at = ?, next_trigger = ?, current_run_id = NULL, "
                + "state = CASE WHEN enabled = 1 THEN ? ELSE state END, updated_at = ? "
                + "WHERE id = ? AND current_run_id = ?", due.toEpochMilli(), trigger, Job.SCHEDULED, now.toEpochMilli(),
                id, Job.PENDING));
    }

    /** Skips the firing due at {@code due} without running it; {@code state} null keeps the state. */
    public boolean advance(String id, Instant due, Instant next, String state, Instant now) {
        return db.write(sql -> sql.update("UPDATE jobs SET next_run_at = ?, next_trigger = ?, "
                + "state = COALESCE(?, state), updated_at = ? WHERE id = ? AND next_run_at = ? AND enabled = 1",
                millis(next), "schedule", state, now.toEpochMilli(), id, due.toEpochMilli())) == 1;
    }

    /** A one-shot found too late: completed without running, {@code last_status} error. */
    public boolean missed(String id, Instant due, Instant now) {
        return db.write(sql -> sql.update("UPDATE jobs SET next_run_at = NULL, enabled = 0, state = ?, "
                + "last_status = ?, last_error = ?, next_trigger = ?, updated_at = ? WHERE id = ? AND next_run_at = ? "
                + "AND enabled = 1 AND current_run_id IS NULL", Job.COMPLETED, "error", "Missed scheduled time",
                "schedule", now.toEpochMilli(), id, due.toEpochMilli())) == 1;
    }

    /**
     * Applies the end of the job's run {@code runId} (or of a firing that never started one, with
     * {@link Job#PENDING}) with {@code settle}, only while the job still shows that run as live;
     * returns the settled job, or empty when it was settled already or deleted.
     */
    public Optional<Job> settle(String id, String runId, UnaryOperator<Job> settle) {
        return db.write(sql -> {
            var job = find(sql, id).filter(j -> runId.equals(j.currentRunId()));
            if (job.isEmpty()) return Optional.<Job>empty();
            var next = settle.apply(job.get());
            sql.update("UPDATE jobs SET repeat_completed = ?, enabled = ?, state = ?, next_run_at = ?, last_run_at = ?, "
                    + "last_status = ?, last_error = ?, last_run_id = ?, current_run_id = ?, updated_at = ? WHERE id = ?",
                    next.repeatCompleted(), next.enabled() ? 1 : 0, next.state(), millis(next.nextRunAt()),
                    millis(next.lastRunAt()), next.lastStatus(), next.lastError(), next.lastRunId(),
                    next.currentRunId(), next.updatedAt().toEpochMilli(), id);
            if (webhooks != null) settled(sql, next, runId);
            return Optional.of(next);
        });
    }

    /**
     * The webhook event of a settled firing, in its transaction: {@code job.run.completed} or
     * {@code job.run.failed}, to the job's webhook and the endpoints that want it.
     */
    private void settled(Sql sql, Job job, String runId) {
        boolean ok = "ok".equals(job.lastStatus());
        var data = json.createObjectNode().put("job_id", job.id()).put("job_name", job.name())
                .put("status", ok ? "completed" : "failed");
        if (job.lastRunId() != null && !Job.PENDING.equals(runId)) data.put("run_id", job.lastRunId());
        if (!ok && job.lastError() != null)
            data.put("error", job.lastError().length() > 500 ? job.lastError().substring(0, 500) + "…" : job.lastError());
        data.put("state", job.state());
        if (job.nextRunAt() != null) data.put("next_run_at", job.nextRunAt().toString());
        var source = "job:" + job.id() + ":" + (Job.PENDING.equals(runId) ? "pending:" + job.updatedAt().toEpochMilli() : runId);
        webhooks.emit(sql, ok ? "job.run.completed" : "job.run.failed", source, job.owner(), data, job.webhook());
    }

    // ---- rows -------------------------------------------------------------------------------

    private Optional<Job> find(Sql sql, String id) {
        return sql.queryOne("SELECT " + COLUMNS + " FROM jobs WHERE id = ?", this::map, id);
    }

    private Object[] values(Job j, boolean idFirst) {
        Object[] rest = {j.name(), j.prompt(), j.scheduleText(), j.tz(), text(j.schedule().json()), text(j.skills()),
                j.skill(), j.deliver(), j.repeatTimes(), j.repeatCompleted(), j.enabled() ? 1 : 0, j.state(),
                millis(j.pausedAt()), j.pausedReason(), j.createdAt().toEpochMilli(), millis(j.nextRunAt()),
                j.nextTrigger(), millis(j.lastRunAt()), j.lastStatus(), j.lastError(), j.lastRunId(),
                j.currentRunId(), j.updatedAt().toEpochMilli(), webhookJson(j.webhook())};
        if (idFirst) { // an insert: id, the columns, owner (COLUMNS' order)
            var all = new Object[rest.length + 2];
            all[0] = j.id();
            System.arraycopy(rest, 0, all, 1, rest.length);
            all[rest.length + 1] = j.owner();
            return all;
        }
        var all = new Object[rest.length + 1]; // an update: the columns of SET_ALL (not owner), then the id
        System.arraycopy(rest, 0, all, 0, rest.length);
        all[rest.length] = j.id();
        return all;
    }

    private Job map(ResultSet r) throws SQLException {
        try {
            var repeat = r.getObject("repeat_times");
            return new Job(r.getString("id"), r.getString("owner"), r.getString("name"), r.getString("prompt"),
                    r.getString("schedule_text"), r.getString("tz"), ScheduleJson.read(json.readTree(r.getString("schedule"))),
                    json.readValue(r.getString("skills"), STRINGS), r.getString("skill"), r.getString("deliver"),
                    repeat == null ? null : ((Number) repeat).intValue(), r.getInt("repeat_completed"),
                    r.getInt("enabled") == 1, r.getString("state"), instant(r, "paused_at"),
                    r.getString("paused_reason"), instant(r, "created_at"), instant(r, "next_run_at"),
                    r.getString("next_trigger"), instant(r, "last_run_at"), r.getString("last_status"),
                    r.getString("last_error"), r.getString("last_run_id"), r.getString("current_run_id"),
                    instant(r, "updated_at"), webhook(r.getString("webhook_json")));
        } catch (JsonProcessingException e) {
            throw new SQLException("unreadable job row", e);
        }
    }

    /** A webhook as stored: {@code {"url", "events"}}; null for none. */
    private static String webhookJson(dev.caduceus.spi.webhook.Webhook hook) {
        return hook == null ? null : hook.toJson().toString();
    }

    private dev.caduceus.spi.webhook.Webhook webhook(String stored) throws JsonProcessingException {
        return stored == null ? null : dev.caduceus.spi.webhook.Webhook.fromJson(json.readTree(stored));
    }

    private String text(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Instant instant(ResultSet r, String column) throws SQLException {
        var v = r.getObject(column);
        return v == null ? null : Instant.ofEpochMilli(((Number) v).longValue());
    }

    private static Long millis(Instant instant) {
        return instant == null ? null : instant.toEpochMilli();
    }
}
