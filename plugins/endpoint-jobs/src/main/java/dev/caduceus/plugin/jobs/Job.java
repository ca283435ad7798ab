package dev.caduceus.plugin.jobs;

import static java.util.Objects.requireNonNull;

import dev.caduceus.plugin.jobs.schedule.Schedule;
import java.time.Instant;
import java.util.List;

/**
 * One job as stored, with the scheduler's own columns. Immutable; a change is made on
 * a {@link Draft} and stored whole.
 *
 * @param owner         the name of the API key that created the job ({@code Caller#name()}); its
 *                      firings run as that key, and other keys do not see it. Never changes.
 * @param scheduleText  the schedule as sent (trimmed), kept so that a new {@code tz} can re-read it
 * @param tz            the request's {@code tz}, or null for the server's zone
 * @param repeatTimes   firings allowed in total, or null for no limit
 * @param nextTrigger   {@code manual} after {@code POST /run} until that firing is claimed, else {@code schedule}
 * @param currentRunId  the live run of this job, {@link #PENDING} between the claim and the run's start, or null
 * @param webhook       where the ends of its runs are told ({@code job.run.completed}, {@code job.run.failed}), or null
 */
public record Job(String id, String owner, String name, String prompt, String scheduleText, String tz, Schedule schedule,
                  List<String> skills, String skill, String deliver, Integer repeatTimes, int repeatCompleted,
                  boolean enabled, String state, Instant pausedAt, String pausedReason, Instant createdAt,
                  Instant nextRunAt, String nextTrigger, Instant lastRunAt, String lastStatus, String lastError,
                  String lastRunId, String currentRunId, Instant updatedAt, dev.caduceus.spi.webhook.Webhook webhook) {

    /** {@link #currentRunId} of a claimed firing whose run is being started. */
    public static final String PENDING = "pending";

    public static final String SCHEDULED = "scheduled";
    public static final String PAUSED = "paused";
    public static final String RUNNING = "running";
    public static final String COMPLETED = "completed";
    public static final String ERROR = "error";

    public Job {
        requireNonNull(id, "id");
        requireNonNull(owner, "owner");
        requireNonNull(name, "name");
        requireNonNull(prompt, "prompt");
        requireNonNull(schedule, "schedule");
        skills = List.copyOf(skills);
        requireNonNull(deliver, "deliver");
        requireNonNull(state, "state");
        requireNonNull(createdAt, "createdAt");
        requireNonNull(nextTrigger, "nextTrigger");
        requireNonNull(updatedAt, "updatedAt");
    }

    /** Whether a run of this job is live (or being started). */
    public boolean live() {
        return currentRunId != null;
    }

    /** Whether the firing being claimed now is the last one {@code repeat} allows. */
    public boolean lastAllowedFiring() {
        return repeatTimes != null && repeatCompleted + 1 >= repeatTimes;
    }

    public Draft draft() {
        return new Draft(this);
    }

    /** A mutable copy for building the next version of a job; confined to one thread. */
    public static final class Draft {
        public String name, prompt, scheduleText, tz, skill, deliver, state, pausedReason, nextTrigger, lastStatus,
                lastError, lastRunId, currentRunId;
        public Schedule schedule;
        public List<String> skills;
        public Integer repeatTimes;
        public int repeatCompleted;
        public boolean enabled;
        public Instant pausedAt, nextRunAt, lastRunAt, updatedAt;
        public dev.caduceus.spi.webhook.Webhook webhook;
        private final String id, owner;
        private final Instant createdAt;

        private Draft(Job j) {
            id = j.id; owner = j.owner; name = j.name; prompt = j.prompt; scheduleText = j.scheduleText; tz = j.tz; schedule = j.schedule;
            skills = j.skills; skill = j.skill; deliver = j.deliver; repeatTimes = j.repeatTimes;
            repeatCompleted = j.repeatCompleted; enabled = j.enabled; state = j.state; pausedAt = j.pausedAt;
            pausedReason = j.pausedReason; createdAt = j.createdAt; nextRunAt = j.nextRunAt; nextTrigger = j.nextTrigger;
            lastRunAt = j.lastRunAt; lastStatus = j.lastStatus; lastError = j.lastError; lastRunId = j.lastRunId;
            currentRunId = j.currentRunId; updatedAt = j.updatedAt; webhook = j.webhook;
        }

        public Job build() {
            return new Job(id, owner, name, prompt, scheduleText, tz, schedule, skills, skill, deliver, repeatTimes,
                    repeatCompleted, enabled, state, pausedAt, pausedReason, createdAt, nextRunAt, nextTrigger,
                    lastRunAt, lastStatus, lastError, lastRunId, currentRunId, updatedAt, webhook);
        }
    }
}
