package dev.caduceus.plugin.jobs;

import dev.caduceus.plugin.jobs.schedule.FireTimes;
import dev.caduceus.plugin.jobs.schedule.Schedule;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.http.Caller;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What the HTTP routes do to jobs, on validated input: create, edit, pause,
 * resume, run now, delete. Each change is one write transaction on the stored row, so it composes
 * with the scheduler's claims. A job is its creator's: every command but create acts only on a job
 * the {@link Caller} {@linkplain Caller#owns owns} and otherwise finds nothing, exactly as for an
 * unknown id. Thread-safe.
 */
public final class JobCommands {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final JobStore store;
    private final Supplier<Runs> runs;
    private final Clock clock;

    public JobCommands(JobStore store, Supplier<Runs> runs, Clock clock) {
        this.store = store;
        this.runs = runs;
        this.clock = clock;
    }

    /** A new job of {@code caller} from validated fields, scheduled from now. */
    public Job create(Caller caller, JobFields f) {
        var now = clock.instant();
        var next = firstRun(f.schedule(), now);
        var job = new Job(newId(), caller.name(), f.name(), f.prompt(), f.scheduleText(), f.tz(), f.schedule(), f.skills(), f.skill(),
                f.deliver(), f.schedule().recurring() ? f.repeatTimes() : Integer.valueOf(1), 0, true,
                next == null ? Job.ERROR : Job.SCHEDULED, null, null, now, next, JobScheduler.SCHEDULE, null, null, null,
                null, null, now, f.webhook());
        store.insert(job);
        return job;
    }

    /** The job {@code id} if {@code caller} may see it. */
    public Optional<Job> find(Caller caller, String id) {
        return store.find(id).filter(visibleTo(caller));
    }

    /** Applies a validated PATCH; empty when the job does not exist (for {@code caller}). */
    public Optional<Job> update(Caller caller, String id, JobPatch patch) {
        var now = clock.instant();
        return store.modify(id, visibleTo(caller), job -> {
            var d = job.draft();
            if (patch.name() != null) d.name = patch.name();
            if (patch.prompt() != null) d.prompt = patch.prompt();
            if (patch.deliver() != null) d.deliver = patch.deliver();
            if (patch.skills() != null) d.skills = patch.skills();
            if (patch.skillSet()) d.skill = patch.skill();
            if (patch.repeatSet()) d.repeatTimes = patch.repeatTimes();
            if (patch.webhookSet()) d.webhook = patch.webhook();
            if (patch.schedule() != null) {
                d.schedule = patch.schedule();
                d.scheduleText = patch.scheduleText();
                d.tz = patch.tz();
                if (job.enabled()) {
                    d.nextRunAt = firstRun(d.schedule, now);
                    d.nextTrigger = JobScheduler.SCHEDULE;
                    if (!job.live()) d.state = d.nextRunAt == null ? Job.ERROR : Job.SCHEDULED;
                }
            }
            if (!d.schedule.recurring()) d.repeatTimes = 1;
            d.updatedAt = now;
            var changed = d.build();
            if (patch.enabled() == null || patch.enabled() == job.enabled()) return changed;
            return patch.enabled() ? resumed(changed, now) : paused(changed, now);
        });
    }

    public Optional<Job> pause(Caller caller, String id) {
        var now = clock.instant();
        return store.modify(id, visibleTo(caller), job -> paused(job, now));
    }

    public Optional<Job> resume(Caller caller, String id) {
        var now = clock.instant();
        return store.modify(id, visibleTo(caller), job -> resumed(job, now));
    }

    /** Due now, enabled; the scheduler fires it on its next tick with trigger {@code manual}. */
    public Optional<Job> runNow(Caller caller, String id) {
        var now = clock.instant();
        return store.modify(id, visibleTo(caller), job -> {
            var d = job.draft();
            d.enabled = true;
            d.state = job.live() ? Job.RUNNING : Job.SCHEDULED;
            d.pausedAt = null;
            d.pausedReason = null;
            d.nextRunAt = now;
            d.nextTrigger = JobScheduler.MANUAL;
            d.updatedAt = now;
            return d.build();
        });
    }

    /** Removes the job and stops its live run; false when it did not exist (for {@code caller}). */
    public boolean delete(Caller caller, String id) {
        var job = store.delete(id, visibleTo(caller));
        job.filter(Job::live).map(Job::currentRunId).filter(run -> !Job.PENDING.equals(run))
                .ifPresent(run -> runs.get().stop(run));
        return job.isPresent();
    }

    private static Predicate<Job> visibleTo(Caller caller) {
        return job -> caller.owns(job.owner());
    }

    private static Job paused(Job job, Instant now) {
        var d = job.draft();
        d.enabled = false;
        d.state = Job.PAUSED;
        d.pausedAt = now;
        d.pausedReason = null;
        d.updatedAt = now;
        return d.build();
    }

    private static Job resumed(Job job, Instant now) {
        var d = job.draft();
        d.enabled = true;
        d.pausedAt = null;
        d.pausedReason = null;
        d.nextRunAt = switch (job.schedule()) {
            case Schedule.Once o -> o.runAt().isAfter(now) ? o.runAt() : now; // a passed one-shot runs at once
            default -> job.schedule().nextAfter(now).orElse(null);
        };
        d.nextTrigger = JobScheduler.SCHEDULE;
        d.state = job.live() ? Job.RUNNING : d.nextRunAt == null ? Job.ERROR : Job.SCHEDULED;
        d.updatedAt = now;
        return d.build();
    }

    /** The first {@code next_run_at} of a new or rescheduled job ({@link FireTimes#first}). */
    private static Instant firstRun(Schedule schedule, Instant now) {
        return FireTimes.first(schedule, now);
    }

    private String newId() {
        while (true) {
            var bytes = new byte[6];
            RANDOM.nextBytes(bytes);
            var id = HexFormat.of().formatHex(bytes);
            if (store.find(id).isEmpty()) return id;
        }
    }
}
