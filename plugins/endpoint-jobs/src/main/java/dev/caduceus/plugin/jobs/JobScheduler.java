package dev.caduceus.plugin.jobs;

import dev.caduceus.plugin.jobs.schedule.CatchUp;
import dev.caduceus.plugin.jobs.schedule.FireTimes;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.model.ModelOptions;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Fires due jobs. Each {@link #tick} settles jobs whose run has ended, then
 * looks at every due job: a firing is <em>claimed</em> with one compare-and-set update
 * ({@link JobStore#claim}) before its run is submitted, so however many loops (or processes) tick
 * over one database, each firing starts at most one run. Runs are watched on virtual threads that
 * settle the job as soon as the run ends; the tick settles what they miss (a restart, a run that
 * ended while nobody waited). A firing runs as the job's owner ({@link RunRequest#owner()}), so its
 * run, session transcript and memory are that key's.
 *
 * <p>Threading: {@link #tick} is called by one periodic task (the host never overlaps it), but any
 * number of schedulers may share the store; watchers run concurrently. Lifecycle: {@link #close}
 * stops the watchers.
 */
public final class JobScheduler implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(JobScheduler.class.getName());
    private static final DateTimeFormatter SESSION_TIME = DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss")
            .withZone(ZoneOffset.UTC);
    static final String MANUAL = "manual";
    static final String SCHEDULE = "schedule";

    /**
     * The origin the host records on a job's runs ({@code RunRequest.from}): {@code job:<id>}. Through it
     * the job's runs share one memory scope and are listed by {@code GET /v1/runs?job_id=}.
     */
    public static String origin(String jobId) {
        return "job:" + jobId;
    }

    private final JobStore store;
    private final Supplier<Runs> runs;
    private final Clock clock;
    private final JobsSettings settings;
    private final String modelName;
    private final ExecutorService watchers = Executors.newVirtualThreadPerTaskExecutor();

    private final JobMetrics metrics;

    public JobScheduler(JobStore store, Supplier<Runs> runs, Clock clock, JobsSettings settings, String modelName,
                        JobMetrics metrics) {
        this.metrics = metrics;
        this.store = store;
        this.runs = runs;
        this.clock = clock;
        this.settings = settings;
        this.modelName = modelName;
    }

    /**
     * One pass: settle ended runs, fire what is due. With a positive {@code lookahead}, then waits for
     * a job due within it and fires that too, so a firing is not up to a whole tick late.
     */
    public void tick(Duration lookahead) {
        reconcile();
        fireDue();
        if (lookahead.isZero() || lookahead.isNegative()) return;
        var next = store.earliestDue();
        if (next.isEmpty()) return;
        var wait = Duration.between(clock.instant(), next.get());
        if (wait.compareTo(lookahead) >= 0) return;
        try {
            if (wait.isPositive()) Thread.sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        fireDue();
    }

    /** Fires every job due now (or records why not). */
    public void fireDue() {
        var now = clock.instant();
        for (var job : store.due(now)) {
            try {
                consider(job, now);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Job " + job.id() + ": firing failed", e);
            }
        }
    }

    private void consider(Job job, Instant now) {
        var due = job.nextRunAt();
        var manual = MANUAL.equals(job.nextTrigger());
        if (job.live()) { // never twice at once: this firing is skipped
            store.advance(job.id(), due, following(job, due, now, manual), null, now);
            metrics.skipped().inc("overlap");
            return;
        }
        switch (manual ? CatchUp.Decision.FIRE : CatchUp.decide(job.schedule(), due, now)) {
            case MISSED -> {
                store.missed(job.id(), due, now);
                metrics.missed().inc();
            }
            case SKIP -> {
                metrics.skipped().inc("catch_up");
                var next = following(job, due, now, false);
                store.advance(job.id(), due, next, next == null ? Job.ERROR : null, now);
            }
            case FIRE -> fire(job, due, now, manual);
        }
    }

    /** The firing time after this one ({@link FireTimes#following}). */
    static Instant following(Job job, Instant due, Instant now, boolean manual) {
        return FireTimes.following(job.schedule(), due, now, manual);
    }

    private void fire(Job job, Instant due, Instant now, boolean manual) {
        var service = runs.get();
        try {
            service.checkAdmission();
        } catch (RunRejectedException e) {
            if (e.reason() == RunRejectedException.Reason.AT_CAPACITY) return; // wait for a free slot (next tick)
            // draining or no model: claim the firing, and submit fails it with the host's message
        }
        var next = job.lastAllowedFiring() ? null : following(job, due, now, manual);
        if (!store.claim(job.id(), due, next, now)) return; // another loop or process won this firing
        var trigger = manual ? MANUAL : SCHEDULE;
        try {
            var handle = service.start(request(job, now), RunOptions.journaled()).handle();
            if (!store.started(job.id(), handle.id(), trigger, due, now)) {
                service.stop(handle.id()); // deleted between claim and start
                return;
            }
            metrics.fired().inc(trigger);
            if (!manual) metrics.lateness().observe(Math.max(0, Duration.between(due, now).toNanos()) / 1e9);
            watch(job.id(), handle);
        } catch (RunRejectedException e) {
            if (e.reason() == RunRejectedException.Reason.AT_CAPACITY) store.unclaim(job.id(), due, trigger, now);
            else settle(job.id(), Job.PENDING, false, e.getMessage(), now);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Job " + job.id() + ": could not start its run", e);
            settle(job.id(), Job.PENDING, false, "Could not start the run: " + e.getMessage(), now);
        }
    }

    private RunRequest request(Job job, Instant now) {
        return new RunRequest(null, List.of(Message.user(job.prompt())), null, List.of(),
                "cron_" + job.id() + "_" + SESSION_TIME.format(now), null, ModelOptions.DEFAULTS, 0,
                Map.of("source", "job", "model", modelName)).ownedBy(job.owner()).from(origin(job.id()));
    }

    private void watch(String jobId, RunHandle handle) {
        watchers.execute(() -> {
            try {
                handle.await();
                settleFromRecord(jobId, handle.id());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (UnsupportedOperationException e) {
                // a host without await: the tick settles it
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Job " + jobId + ": watching run " + handle.id() + " failed", e);
            }
        });
    }

    /** Settles every job whose run has ended (after a restart: runs the host marked interrupted). */
    public void reconcile() {
        var now = clock.instant();
        for (var job : store.live()) {
            try {
                if (Job.PENDING.equals(job.currentRunId())) {
                    if (job.updatedAt().plus(settings.startTimeout()).isBefore(now))
                        settle(job.id(), Job.PENDING, false, "The server stopped before this firing started its run.", now);
                } else {
                    settleFromRecord(job.id(), job.currentRunId());
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Job " + job.id() + ": reconciling failed", e);
            }
        }
    }

    private void settleFromRecord(String jobId, String runId) {
        var record = runs.get().record(runId);
        if (record.isEmpty()) {
            settle(jobId, runId, false, "The run's record is gone.", clock.instant());
            return;
        }
        var r = record.get();
        if (!r.status().isTerminal()) return;
        settle(jobId, runId, r.status() == RunStatus.COMPLETED, errorOf(r), r.createdAt());
    }

    private static String errorOf(RunRecord r) {
        return switch (r.status()) {
            case COMPLETED -> null;
            case CANCELLED -> "Run cancelled";
            default -> r.error() != null ? r.error() : "Run " + r.status().wireName();
        };
    }

    /** Applies the end of a firing: repeat count, last_* fields, and the state that follows. */
    private void settle(String jobId, String runId, boolean ok, String error, Instant firedAt) {
        var now = clock.instant();
        store.settle(jobId, runId, job -> {
            var d = job.draft();
            d.repeatCompleted = job.repeatCompleted() + 1;
            d.lastRunAt = firedAt;
            if (!Job.PENDING.equals(runId)) d.lastRunId = runId;
            d.lastStatus = ok ? "ok" : "error";
            d.lastError = ok ? null : error;
            d.currentRunId = null;
            d.updatedAt = now;
            if (job.repeatTimes() != null && d.repeatCompleted >= job.repeatTimes()) {
                d.enabled = false;
                d.state = Job.COMPLETED;
                d.nextRunAt = null;
            } else if (!job.enabled()) {
                d.state = job.state();
            } else if (job.nextRunAt() == null) {
                d.state = job.schedule().recurring() ? Job.ERROR : Job.COMPLETED;
                d.enabled = job.schedule().recurring();
            } else {
                d.state = Job.SCHEDULED;
            }
            return d.build();
        });
    }

    @Override
    public void close() {
        watchers.shutdownNow();
    }
}
