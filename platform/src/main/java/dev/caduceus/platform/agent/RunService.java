package dev.caduceus.platform.agent;

import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.agent.Message;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunRejectedException.Reason;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.agent.Usage;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host's {@link Runs}: admission (draining, model configured, {@code server.max_concurrent_runs}),
 * one virtual thread per run executing the selected {@link AgentRuntime}, the terminal event written
 * from the {@link RunResult}, the session transcript appended, and the events served from an
 * {@link EventLog}. A run holds its concurrency slot until its terminal event and transcript are
 * written. The last {@value #RETAINED_FINISHED_RUNS} finished runs stay findable.
 *
 * <p>Shutdown (architecture rule 10): {@link #drain} stops admitting, waits for live runs, then
 * cancels the rest. Threading: thread-safe.
 */
public final class RunService implements Runs {
    /** The http-api.md §14.1 message. */
    public static final String MODEL_NOT_CONFIGURED = "No model provider is configured. Set model.base_url, model.api_key "
            + "and model.name in ~/.caduceus/config.yaml (or export OPENAI_BASE_URL, OPENAI_API_KEY and CADUCEUS_MODEL) "
            + "and restart Caduceus.";
    static final String DRAINING = "Gateway is draining existing work; retry shortly.";
    static final int RETAINED_FINISHED_RUNS = 1000;
    private static final Logger LOG = LoggerFactory.getLogger(RunService.class);

    private final AgentRuntime runtime;
    private final EventLog log;
    private final SessionStore sessions;
    private final int maxConcurrentRuns;
    private final boolean modelReady;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private final Map<String, LiveRun> live = new ConcurrentHashMap<>();
    private final LinkedHashMap<String, LiveRun> finished = new LinkedHashMap<>();
    private int active;
    private boolean draining;

    /**
     * @param sessions          transcripts to append to, or null to keep none
     * @param maxConcurrentRuns 0 for unlimited
     * @param modelReady        whether an upstream is configured and a provider contributed (or the
     *                          runtime needs none)
     */
    public RunService(AgentRuntime runtime, EventLog log, SessionStore sessions, int maxConcurrentRuns,
                      boolean modelReady, Clock clock) {
        this.runtime = runtime;
        this.log = log;
        this.sessions = sessions;
        this.maxConcurrentRuns = maxConcurrentRuns;
        this.modelReady = modelReady;
        this.clock = clock;
    }

    @Override
    public void checkAdmission() throws RunRejectedException {
        lock.lock();
        try {
            refuseIfFull();
        } finally {
            lock.unlock();
        }
    }

    private void refuseIfFull() throws RunRejectedException {
        if (draining) throw new RunRejectedException(Reason.DRAINING, DRAINING);
        if (!modelReady) throw new RunRejectedException(Reason.MODEL_NOT_CONFIGURED, MODEL_NOT_CONFIGURED);
        if (maxConcurrentRuns > 0 && active >= maxConcurrentRuns)
            throw new RunRejectedException(Reason.AT_CAPACITY, "Too many concurrent runs (max " + maxConcurrentRuns + ")");
    }

    @Override
    public RunHandle start(RunRequest request) throws RunRejectedException {
        var run = new LiveRun("run_" + UUID.randomUUID().toString().replace("-", ""), request, log, clock);
        lock.lock();
        try {
            refuseIfFull();
            active++;
            live.put(run.id(), run);
        } finally {
            lock.unlock();
        }
        Thread.ofVirtual().name(run.id()).start(() -> execute(run));
        return run;
    }

    private void execute(LiveRun run) {
        RunResult result = null;
        try {
            result = runtime.execute(run.request(), run.context());
            if (result == null) throw new IllegalStateException("runtime '" + runtime.id() + "' returned no result");
        } catch (Throwable e) {
            LOG.error("Run {} failed", run.id(), e);
            result = RunResult.of(StopReason.INTERNAL_ERROR, null, Usage.ZERO, "internal_error",
                    "Internal server error: " + e.getClass().getSimpleName(), List.of());
        } finally {
            finish(run, result);
        }
    }

    private void finish(LiveRun run, RunResult result) {
        try {
            run.append(terminal(result, run.cancellation().reason()));
            appendTranscript(run.request(), result);
        } catch (RuntimeException e) {
            LOG.error("Run {} could not be finished cleanly", run.id(), e);
        } finally {
            lock.lock();
            try {
                active--;
                live.remove(run.id());
                finished.put(run.id(), run);
                if (finished.size() > RETAINED_FINISHED_RUNS) {
                    var eldest = finished.keySet().iterator().next();
                    finished.remove(eldest);
                    log.forget(eldest);
                }
                idle.signalAll();
            } finally {
                lock.unlock();
            }
            run.complete(result);
        }
    }

    /** The terminal event for a result: Completed, Failed or Cancelled. */
    static RunEvent terminal(RunResult r, String cancelReason) {
        return switch (r.status()) {
            case COMPLETED -> new RunEvent.Completed(r.output(), r.stopReason(), r.error(), r.usage());
            case CANCELLED -> new RunEvent.Cancelled(cancelReason == null ? "cancelled" : cancelReason, r.output(), r.usage());
            case FAILED, INTERRUPTED, QUEUED, RUNNING, WAITING_FOR_APPROVAL, STOPPING -> new RunEvent.Failed(
                    r.errorCode() == null ? "agent_error" : r.errorCode(), r.error(), r.stopReason(), r.output(), r.usage());
        };
    }

    /** The turn input (the request's last message) and the turn's messages, in one write. */
    private void appendTranscript(RunRequest request, RunResult result) {
        if (sessions == null || request.sessionId() == null) return;
        var messages = new ArrayList<Message>();
        if (!request.messages().isEmpty()) messages.add(request.messages().getLast());
        messages.addAll(result.messages());
        sessions.append(request.sessionId(), messages);
    }

    @Override
    public Optional<RunHandle> find(String runId) {
        var run = live.get(runId);
        if (run != null) return Optional.of(run);
        lock.lock();
        try {
            return Optional.ofNullable(finished.get(runId));
        } finally {
            lock.unlock();
        }
    }

    /** Approvals arrive with the runs API; no run waits for one yet. */
    @Override
    public boolean approve(String runId, String approvalId, String choice) {
        return false;
    }

    @Override
    public boolean steer(String runId, String text) {
        var run = live.get(runId);
        return run != null && text != null && !text.isBlank() && run.steer(text);
    }

    /** Runs admitted and not yet ended (the health counters). */
    public int activeRuns() {
        lock.lock();
        try {
            return active;
        } finally {
            lock.unlock();
        }
    }

    /** Stops admitting: from now on {@link #start} throws {@code DRAINING}. */
    public void beginDrain() {
        lock.lock();
        try {
            draining = true;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until no run is live; false on timeout. */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (active > 0) {
                if (nanos <= 0) return false;
                nanos = idle.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Cancels every live run with {@code reason}. */
    public void cancelAll(String reason) {
        live.values().forEach(r -> r.cancel(reason));
    }

    /**
     * Shutdown: stop admitting, let live runs finish for up to {@code timeout}, then cancel the rest
     * and give them a few seconds to write their terminal events.
     */
    public void drain(Duration timeout) throws InterruptedException {
        beginDrain();
        if (awaitIdle(timeout)) return;
        LOG.warn("Drain timeout reached; cancelling {} live run(s)", activeRuns());
        cancelAll("shutdown");
        if (!awaitIdle(Duration.ofSeconds(5))) LOG.warn("{} run(s) did not stop in time", activeRuns());
    }
}
