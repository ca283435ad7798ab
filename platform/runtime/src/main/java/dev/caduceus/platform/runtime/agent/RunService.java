package dev.caduceus.platform.runtime.agent;

import static dev.caduceus.platform.host.logging.MdcKeys.REQUEST_ID;
import static dev.caduceus.platform.host.logging.MdcKeys.RUN_ID;

import dev.caduceus.platform.runtime.journal.EventLog;
import dev.caduceus.platform.runtime.journal.RunJournal;
import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.Runs.ToolOutputs;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunStart;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.SteerOutcome;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunRejectedException.Reason;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.support.ids.RandomIds;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.MDC;
import org.slf4j.LoggerFactory;

/**
 * The host's {@link Runs}: admission (draining, model configured, {@code server.max_concurrent_runs}),
 * one virtual thread per run executing the selected {@link AgentRuntime}, the terminal event written
 * from the {@link RunResult}, the session transcript appended, and the events served from an
 * {@link EventLog}: ephemeral runs (chat, Responses) from memory, durable runs (runs API, jobs) from
 * the {@link RunJournal}, which also holds their status records and idempotency keys. A run holds its
 * concurrency slot until its terminal event is committed and its transcript written. Finished
 * ephemeral runs stay findable for {@link #FINISHED_RETENTION} (at most the last
 * {@value #RETAINED_FINISHED_RUNS}), without their request; durable ones stay in the journal for
 * {@code runs.retention_days}.
 *
 * <p>Shutdown (first of the shutdown steps, before Jetty and the plugins stop): {@link #drain} stops admitting, waits for live runs, then
 * cancels the rest; durable runs cancelled by shutdown stay live in the journal, for the next process (or another
 * node) to resume, or end {@code interrupted} when they cannot be resumed. Threading: thread-safe.
 */
public final class RunService implements Runs {
    /** The 503 {@code model_not_configured} message: it tells the operator which settings to make. */
    public static final String MODEL_NOT_CONFIGURED = "No model provider is configured. Set model.base_url, model.api_key "
            + "and model.name in ~/.caduceus/config.yaml (or export OPENAI_BASE_URL, OPENAI_API_KEY and CADUCEUS_MODEL) "
            + "and restart Caduceus.";
    static final String DRAINING = "Gateway is draining existing work; retry shortly.";
    static final String SHUTDOWN = "shutdown";
    /** The cancel reason of a run another node took over while this node's lease had expired. */
    static final String TAKEN_OVER = "taken_over";
    static final String NO_ANSWER = "The agent finished without a final answer.";
    static final int RETAINED_FINISHED_RUNS = 1000;
    /** How long a finished ephemeral run stays findable, with its events in memory. */
    static final java.time.Duration FINISHED_RETENTION = java.time.Duration.ofSeconds(60);
    private static final Logger LOG = LoggerFactory.getLogger(RunService.class);

    /**
     * Durable-run settings.
     *
     * @param resume whether and how runs live when their server stopped are resumed ({@code runs.resume},
     *               {@code runs.max_resumes}, {@code runs.resume_window})
     */
    public record Durability(RunJournal journal, Duration approvalTimeout, Duration idempotencyRetention,
                             dev.caduceus.platform.host.webhooks.DeploymentWebhooks webhooks,
                             RunJournal.ResumePolicy resume, List<Runs.Resumer> resumers) {
        public Durability {
            resumers = List.copyOf(resumers);
        }

        /** No plugin follows its runs across a takeover. */
        public Durability(RunJournal journal, Duration approvalTimeout, Duration idempotencyRetention,
                          dev.caduceus.platform.host.webhooks.DeploymentWebhooks webhooks, RunJournal.ResumePolicy resume) {
            this(journal, approvalTimeout, idempotencyRetention, webhooks, resume, List.of());
        }

        /** Without webhooks: a run that names one is refused. */
        public Durability(RunJournal journal, Duration approvalTimeout, Duration idempotencyRetention) {
            this(journal, approvalTimeout, idempotencyRetention, null);
        }

        /** Runs are not resumed: those live when their server stopped end interrupted. */
        public Durability(RunJournal journal, Duration approvalTimeout, Duration idempotencyRetention,
                          dev.caduceus.platform.host.webhooks.DeploymentWebhooks webhooks) {
            this(journal, approvalTimeout, idempotencyRetention, webhooks, RunJournal.ResumePolicy.OFF);
        }
    }

    private final AgentRuntime runtime;
    private final EventLog log;
    private final Durability durability;
    private final SessionStore sessions;
    private final int maxConcurrentRuns;
    private final boolean modelReady;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private final Map<String, LiveRun> live = new ConcurrentHashMap<>();
    private final LinkedHashMap<String, FinishedRun> finished = new LinkedHashMap<>(); // guarded by lock
    private int active;
    private final AgentMetrics metrics;
    private final Map<String, Integer> activeByOwner = new java.util.HashMap<>(); // guarded by lock
    private final OwnerPolicies policies;
    private volatile PeerRuns peers; // null: this node is alone
    private boolean draining;

    /**
     * @param log               where ephemeral runs' events live
     * @param durability        the journal for durable runs, or null when this host keeps none
     * @param sessions          transcripts to append to, or null to keep none
     * @param maxConcurrentRuns 0 for unlimited
     * @param modelReady        whether an upstream is configured and a provider contributed (or the
     *                          runtime needs none)
     */
    public RunService(AgentRuntime runtime, EventLog log, Durability durability, SessionStore sessions,
                      int maxConcurrentRuns, boolean modelReady, Clock clock) {
        this(runtime, log, durability, sessions, maxConcurrentRuns, modelReady, clock, AgentMetrics.none(), null,
                OwnerPolicies.NONE);
    }

    /**
     * @param metrics      where runs and approvals are counted
     * @param hostMetrics  where the active and waiting gauges go ({@code caduceus_runs_active},
     *                     {@code caduceus_runs_waiting_for_approval}), or null for none
     * @param policies     the named keys' limits ({@link OwnerPolicies#NONE}: none)
     */
    public RunService(AgentRuntime runtime, EventLog log, Durability durability, SessionStore sessions,
                      int maxConcurrentRuns, boolean modelReady, Clock clock, AgentMetrics metrics,
                      dev.caduceus.spi.metrics.Metrics hostMetrics, OwnerPolicies policies) {
        this.metrics = metrics;
        this.policies = java.util.Objects.requireNonNull(policies, "policies");
        if (hostMetrics != null) {
            hostMetrics.gauge("runs_active", "Agent runs live now", this::activeRuns);
            hostMetrics.gauge("runs_waiting_for_approval", "Live runs waiting for a person to answer an approval",
                    () -> live.values().stream().filter(LiveRun::waitingForApproval).count());
        }
        this.runtime = runtime;
        this.log = log;
        this.durability = durability;
        this.sessions = sessions;
        this.maxConcurrentRuns = maxConcurrentRuns;
        this.modelReady = modelReady;
        this.clock = clock;
    }

    /**
     * Tool calls outside a turn (endpoint-mcp): the local runtime's tools under the same key policies
     * as runs; with another runtime (the relay runs every turn remotely) no tool is offered here.
     */
    public dev.caduceus.support.services.ToolCalls toolCalls() {
        if (runtime instanceof LocalAgentRuntime local) return local.directCalls(policies);
        return new dev.caduceus.support.services.ToolCalls() {
            @Override
            public List<dev.caduceus.spi.tool.Tool> offered(dev.caduceus.spi.http.Caller caller, List<String> toolsets) {
                return List.of();
            }

            @Override
            public dev.caduceus.spi.tool.ToolResult call(Request request) {
                return new dev.caduceus.spi.tool.ToolResult.Error("This deployment's agent runs on a remote "
                        + "server (agent.runtime " + runtime.id() + "); its tools are not served here", false);
            }
        };
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

    @Override
    public void checkReady() throws RunRejectedException {
        lock.lock();
        try {
            refuseIfNotReady();
        } finally {
            lock.unlock();
        }
    }

    private void refuseIfNotReady() throws RunRejectedException {
        if (draining) throw new RunRejectedException(Reason.DRAINING, DRAINING);
        if (!modelReady) throw new RunRejectedException(Reason.MODEL_NOT_CONFIGURED, MODEL_NOT_CONFIGURED);
    }

    private void refuseIfFull() throws RunRejectedException {
        refuseIfNotReady();
        if (maxConcurrentRuns > 0 && active >= maxConcurrentRuns)
            throw new RunRejectedException(Reason.AT_CAPACITY, "Too many concurrent runs (max " + maxConcurrentRuns + ")");
    }

    /** Counts {@code request}'s run in, within the server's cap and its key's own; returns it with its key's toolsets. */
    private RunRequest admit(RunRequest request) throws RunRejectedException {
        var owner = request.owner();
        var refused = keyRefusal(owner);
        if (refused.isPresent()) throw refused.get();
        int cap = policies.maxConcurrentRuns(owner);
        lock.lock();
        try {
            refuseIfFull();
            int mine = activeByOwner.getOrDefault(owner, 0);
            if (cap > 0 && mine >= cap)
                throw new RunRejectedException(Reason.AT_CAPACITY,
                        "Too many concurrent runs for API key '" + owner + "' (max " + cap + ")");
            active++;
            activeByOwner.put(owner, mine + 1);
        } finally {
            lock.unlock();
        }
        return restrictToolsets(request, policies.toolsets(owner));
    }

    /** Why runs of key {@code owner} may not start or go on: it was revoked, or its budget is spent. */
    private Optional<RunRejectedException> keyRefusal(String owner) {
        if (!policies.inForce(owner))
            return Optional.of(new RunRejectedException(Reason.KEY_REVOKED, "API key '" + owner
                    + "' is revoked; its runs no longer start"));
        return policies.refusal(owner);
    }

    /**
     * A key limited to some toolsets: a turn asking for none gets the key's; one asking for some
     * keeps only those the key may use (so none at all, when it asked only for others).
     */
    static RunRequest restrictToolsets(RunRequest request, List<String> allowed) {
        if (allowed.isEmpty()) return request;
        var toolsets = request.toolsets().isEmpty() ? allowed
                : request.toolsets().stream().filter(allowed::contains).toList();
        if (toolsets.isEmpty()) toolsets = List.of(NO_TOOLSET);
        return request.withToolsets(toolsets); // the caller's own functions are never limited
    }

    /** A toolset no plugin defines: a turn limited to it is offered no tools. */
    static final String NO_TOOLSET = "none";

    private void release(String owner) {
        lock.lock();
        try {
            active--;
            activeByOwner.computeIfPresent(owner, (k, n) -> n <= 1 ? null : n - 1);
            idle.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Admits an ephemeral run and starts it on its own thread (the host's own callers: batch, tests). */
    public RunHandle start(RunRequest request) throws RunRejectedException {
        request = admit(request);
        var run = new LiveRun(newId(), request, false, log, clock, Duration.ZERO, metrics);
        log.open(run.id());
        launch(run);
        return run;
    }

    /**
     * {@link #start} without the run thread: the caller's thread executes the run (renamed to the
     * run id meanwhile, as a run thread is, so that log lines name the run).
     */
    @Override
    public RunResult call(RunRequest request, Consumer<RunHandle> started) throws RunRejectedException,
            InterruptedException {
        request = admit(request);
        var run = new LiveRun(newId(), request, false, log, clock, Duration.ZERO, metrics);
        log.open(run.id());
        live.put(run.id(), run);
        var thread = Thread.currentThread();
        var name = thread.getName();
        thread.setName(run.id());
        boolean requestThread = MDC.get(REQUEST_ID) != null;   // the pipeline clears its MDC at the end
        MDC.put(RUN_ID, run.id());
        try {
            try {
                started.accept(run);
            } catch (RuntimeException e) {
                run.cancel("internal_error"); // the run still ends, and is counted out, as any run does
                execute(run);
                throw e;
            }
            execute(run);
        } finally {
            thread.setName(name);
            if (!requestThread) MDC.remove(RUN_ID);             // a batch worker or task thread runs others next
        }
        return run.await();
    }

    @Override
    public RunStart start(RunRequest request, RunOptions options) throws RunRejectedException {
        if (!options.durable()) return new RunStart(start(request), RunStatus.RUNNING, false);
        if (durability == null) throw new UnsupportedOperationException("this host keeps no run journal");
        var journal = durability.journal();
        var keyNotBefore = clock.instant().minus(durability.idempotencyRetention());
        var key = scopedKey(request.owner(), options.idempotencyKey());
        if (key != null) {
            var recorded = journal.findKey(key, keyNotBefore);
            if (recorded.isPresent()) return replay(recorded.get(), options);
        }
        var webhookJson = webhookJson(options.webhook());
        request = admit(request);
        boolean resumable = durability.resume().enabled() && runtime.resumable();
        var run = resumable
                ? LiveRun.resumable(newId(), request, journal, clock, durability.approvalTimeout(), metrics, null, null)
                : new LiveRun(newId(), request, true, journal, clock, durability.approvalTimeout(), metrics);
        if (!options.interactive()) run.withoutWaiting();
        try {
            var raced = journal.create(run.record(), key, options.fingerprint(), keyNotBefore, webhookJson,
                    resumable ? request : null, options.interactive());
            if (raced.isPresent()) {
                release(request.owner());
                return replay(raced.get(), options);
            }
        } catch (RuntimeException e) {
            release(request.owner());
            throw e;
        }
        launch(run);
        return new RunStart(run, RunStatus.QUEUED, false);
    }

    /**
     * The run's webhook as stored ({@code {url, events}}), or null without one; refused
     * ({@link RunRejectedException.Reason#WEBHOOK_NOT_ALLOWED}) when webhooks are off or its host may not be used.
     */
    private String webhookJson(dev.caduceus.spi.webhook.Webhook hook) throws RunRejectedException {
        if (hook == null) return null;
        var webhooks = durability.webhooks();
        var refusal = webhooks == null ? java.util.Optional.of("webhooks are not enabled on this server")
                : webhooks.refusal(hook);
        if (refusal.isPresent())
            throw new RunRejectedException(RunRejectedException.Reason.WEBHOOK_NOT_ALLOWED, refusal.get());
        return hook.toJson().toString();
    }

    private RunStart replay(RunJournal.RecordedKey key, RunOptions options) throws RunRejectedException {
        if (!key.fingerprint().equals(options.fingerprint()))
            throw new RunRejectedException(Reason.IDEMPOTENCY_CONFLICT, RunRejectedException.IDEMPOTENCY_CONFLICT_MESSAGE);
        var handle = find(key.runId()).orElseThrow(() -> new IllegalStateException("recorded run vanished: " + key.runId()));
        var status = record(key.runId()).map(RunRecord::status).orElse(RunStatus.INTERRUPTED);
        return new RunStart(handle, status, true);
    }

    /**
     * An {@code Idempotency-Key} as stored: each key name has its own keys (the same key from two
     * tenants is two runs, and never replays the other's); the admin key's are stored as they came.
     */
    static String scopedKey(String owner, String key) {
        if (key == null || owner.equals(dev.caduceus.spi.http.Caller.ADMIN)) return key;
        return owner + "\u001f" + key;
    }

    private static String newId() {
        return RandomIds.hex("run_", 32);
    }

    private void launch(LiveRun run) {
        LOG.debug("Run {} started for key {}", run.id(), run.request().owner());
        live.put(run.id(), run);
        var requestId = MDC.get(REQUEST_ID);
        noteForRequestLog(run.id());                               // the request that started it logs it
        Thread.ofVirtual().name(run.id()).start(() -> {
            if (requestId != null) MDC.put(REQUEST_ID, requestId);  // the run's lines name that request
            MDC.put(RUN_ID, run.id());
            execute(run);
        });
    }

    private void execute(LiveRun run) {
        RunResult result = null;
        long started = System.nanoTime();
        var source = metrics.source(run.request().metadata());
        metrics.runsStarted().inc(source);
        try {
            run.markRunning();
            result = runtime.execute(run.request(), run.context());
            if (result == null) throw new IllegalStateException("runtime '" + runtime.id() + "' returned no result");
        } catch (Throwable e) {
            LOG.error("Run {} (key {}) failed", run.id(), run.request().owner(), e);
            result = RunResult.of(StopReason.INTERNAL_ERROR, null, Usage.ZERO, "internal_error",
                    "Internal server error: " + e.getClass().getSimpleName(), List.of());
        } finally {
            finish(run, result);
            var outcome = AgentMetrics.outcome(result == null ? null : result.status());
            metrics.runsFinished().inc(source, outcome);
            metrics.runDuration().recordSince(started, source, outcome);
        }
    }

    private void finish(LiveRun run, RunResult result) {
        try {
            if (run.resumable() && SHUTDOWN.equals(run.cancellation().reason())) {
                // stopped by this server's shutdown: it stays live in the journal, and the next process resumes it
                durability.journal().flush();
                LOG.info("Run {} stopped by the shutdown; it is resumed at the next start (or by another node)", run.id());
            } else if (TAKEN_OVER.equals(run.cancellation().reason())) {
                LOG.info("Run {} stopped here: another node executes it now", run.id()); // its end and transcript are that node's
            } else {
                run.finish(terminal(result, run.cancellation().reason(), run.durable()));
                appendTranscript(run.request(), result);
            }
        } catch (RuntimeException e) {
            LOG.error("Run {} (key {}) could not be finished cleanly", run.id(), run.request().owner(), e);
        } finally {
            lock.lock();
            try {
                active--;
                activeByOwner.computeIfPresent(run.request().owner(), (k, n) -> n <= 1 ? null : n - 1);
                live.remove(run.id());
                if (run.durable()) {
                    durability.journal().forget(run.id());
                } else {
                    finished.put(run.id(), new FinishedRun(run.id(), result, log, clock.instant()));
                    evictFinished();
                }
                idle.signalAll();
            } finally {
                lock.unlock();
            }
            run.complete(result);
        }
    }

    /**
     * The terminal event for a result: Completed, Failed or Cancelled. A durable run cancelled by
     * shutdown ends Interrupted (unless it can be resumed: then it gets no terminal event and stays live), and one that completed without any answer text ends Failed (a runs
     * client needs a final answer).
     */
    static RunEvent terminal(RunResult r, String cancelReason, boolean durable) {
        if (durable && r.status() == RunStatus.CANCELLED && SHUTDOWN.equals(cancelReason))
            return new RunEvent.Interrupted(RunJournal.INTERRUPTED_ERROR);
        if (durable && r.status() == RunStatus.COMPLETED && (r.output() == null || r.output().isBlank())
                && r.stopReason() != StopReason.TOOL_CALLS) // a run that does not wait ends with the caller's calls
            return new RunEvent.Failed(r.errorCode() == null ? "agent_incomplete" : r.errorCode(),
                    r.error() == null ? NO_ANSWER : r.error(), r.stopReason(), r.output(), r.usage());
        return switch (r.status()) {
            case COMPLETED -> new RunEvent.Completed(r.output(), r.stopReason(), r.error(), r.usage());
            case CANCELLED -> new RunEvent.Cancelled(cancelReason == null ? "cancelled" : cancelReason, r.output(), r.usage());
            case FAILED, INTERRUPTED, QUEUED, RUNNING, WAITING_FOR_APPROVAL, REQUIRES_ACTION, STOPPING -> new RunEvent.Failed(
                    r.errorCode() == null ? "agent_error" : r.errorCode(), r.error(), r.stopReason(), r.output(), r.usage());
        };
    }

    /**
     * The turn input (the request's last message, or the tool results that end it: a client's answers to its own
     * tool calls) and the turn's messages, in one write.
     */
    private void appendTranscript(RunRequest request, RunResult result) {
        if (sessions == null || request.sessionId() == null) return;
        var messages = new ArrayList<Message>();
        var input = request.messages();
        int first = input.size() - 1;
        while (first > 0 && input.get(first).role().equals("tool") && input.get(first - 1).role().equals("tool")) first--;
        if (first >= 0) messages.addAll(input.subList(first, input.size()));
        messages.addAll(result.messages());
        sessions.append(SessionStore.scoped(request.owner(), request.sessionId()), messages);
    }

    @Override
    public Optional<RunHandle> find(String runId) {
        var found = lookUp(runId);
        if (found.isPresent()) noteForRequestLog(runId);
        return found;
    }

    /**
     * Puts {@code runId} in the MDC of the calling thread when it handles a request (the request log
     * names the run; the pipeline clears the MDC when the request ends). Other threads (job ticks,
     * batch workers) are left alone, so a stale run id never sticks to a thread that runs on.
     */
    private static void noteForRequestLog(String runId) {
        if (MDC.get(REQUEST_ID) != null) MDC.put(RUN_ID, runId);
    }

    /**
     * Drops finished ephemeral runs past {@value #RETAINED_FINISHED_RUNS} or older than
     * {@link #FINISHED_RETENTION}, and their events (readers still draining one keep theirs). Under
     * {@link #lock}.
     */
    private void evictFinished() {
        var cutoff = clock.instant().minus(FINISHED_RETENTION);
        var it = finished.values().iterator();
        while (it.hasNext()) {
            var eldest = it.next();
            if (finished.size() <= RETAINED_FINISHED_RUNS && !eldest.finishedAt().isBefore(cutoff)) break;
            it.remove();
            log.forget(eldest.id());
        }
    }

    private Optional<RunHandle> lookUp(String runId) {
        var run = live.get(runId);
        if (run != null) return Optional.of(run);
        lock.lock();
        try {
            evictFinished();
            var done = finished.get(runId);
            if (done != null) return Optional.of(done);
        } finally {
            lock.unlock();
        }
        if (durability == null || !looksLikeRunId(runId)) return Optional.empty();
        return durability.journal().record(runId).map(r -> new StoredRun(r, durability.journal()));
    }

    @Override
    public Optional<RunRecord> record(String runId) {
        var run = live.get(runId);
        if (run != null) return run.durable() ? Optional.of(run.record()) : Optional.empty();
        if (durability == null || !looksLikeRunId(runId)) return Optional.empty();
        return durability.journal().record(runId);
    }

    @Override
    public RunQuery.Page list(RunQuery query) {
        if (durability == null) return new RunQuery.Page(List.of(), false);
        return durability.journal().list(query);
    }

    /**
     * Sends control requests for runs live on other nodes there ({@code stop}, {@code approve},
     * {@code steer}). Call once at boot, before serving; without it the service is alone.
     */
    public void bindPeers(PeerRuns peers) {
        this.peers = java.util.Objects.requireNonNull(peers, "peers");
    }

    @Override
    public boolean stop(String runId) {
        var run = live.get(runId);
        if (run != null) return run.stop();
        var elsewhere = peers == null ? Optional.<Boolean>empty() : peers.stop(runId);
        return elsewhere.orElse(false);
    }

    @Override
    public ApprovalAnswer.Outcome approve(String runId, ApprovalAnswer answer) {
        var run = live.get(runId);
        if (run != null) {
            var outcome = run.approve(answer);
            if (outcome instanceof ApprovalAnswer.Outcome.Resolved r)
                metrics.approvalsAnswered().add(r.count(), answer.choice().name().toLowerCase(java.util.Locale.ROOT));
            return outcome;
        }
        if (peers != null) {
            var elsewhere = peers.approve(runId, answer);
            if (elsewhere.isPresent()) return elsewhere.get();
        }
        return record(runId).isPresent() ? new ApprovalAnswer.Outcome.NotActive() : new ApprovalAnswer.Outcome.RunNotFound();
    }

    @Override
    public SteerOutcome steer(String runId, String text) {
        var run = live.get(runId);
        if (run != null) {
            if (text == null || text.isBlank()) return SteerOutcome.NOT_ACCEPTED;
            return run.steer(text);
        }
        if (peers != null) {
            var elsewhere = peers.steer(runId, text);
            if (elsewhere.isPresent()) return elsewhere.get();
        }
        return record(runId).isPresent() ? SteerOutcome.NOT_RUNNING : SteerOutcome.RUN_NOT_FOUND;
    }


    @Override
    public ToolOutputs submitToolOutputs(String runId, java.util.Map<String, String> outputs) {
        var run = live.get(runId);
        if (run != null) return run.submitToolOutputs(outputs);
        if (peers != null) {
            var elsewhere = peers.submitToolOutputs(runId, outputs);
            if (elsewhere.isPresent()) return elsewhere.get();
        }
        return record(runId).isPresent() ? new ToolOutputs.NotWaiting() : new ToolOutputs.RunNotFound();
    }

    /**
     * Boot recovery of a single node: the runs an earlier process left live are resumed here, as
     * {@code runs.resume} allows, or end (interrupted, failed after {@code runs.max_resumes}, cancelled when they were
     * being stopped). Returns how many runs were taken over.
     */
    public int recover() {
        if (durability == null) return 0;
        var done = durability.journal().recover(clock.instant(), resumePolicy());
        return resume(done, "when the server stopped");
    }

    /** The resume policy in force: none when the runtime cannot resume runs. */
    public RunJournal.ResumePolicy resumePolicy() {
        return durability != null && runtime.resumable() ? durability.resume() : RunJournal.ResumePolicy.OFF;
    }

    /**
     * Executes again the runs a takeover claimed for this node (a restart's, or the cluster's for a dead node), and
     * logs and counts what it did; {@code when} says whose runs they were, for the log. Returns how many runs it took
     * over.
     */
    public int resume(RunJournal.TakeOver done, String when) {
        int total = done.resumed().size() + done.ended().size();
        if (total == 0) return 0;
        metrics.runsTakenOver().add(done.resumed().size(), "resumed");
        metrics.runsTakenOver().add(done.interrupted().size(), "interrupted");
        metrics.runsTakenOver().add(done.failed().size(), "failed");
        metrics.runsTakenOver().add(done.cancelled().size(), "cancelled");
        if (!done.resumed().isEmpty())
            LOG.warn("{} run(s) were live {}; resuming them here: {}", done.resumed().size(), when, sample(done.resumed()));
        if (!done.interrupted().isEmpty())
            LOG.warn("{} run(s) were live {}; marked interrupted{}: {}", done.interrupted().size(), when,
                    resumePolicy().enabled() ? " (not resumable, or older than runs.resume_window)" : "",
                    sample(done.interrupted()));
        if (!done.failed().isEmpty())
            LOG.warn("{} run(s) were live {} once more after {} resumption(s); marked failed: {}", done.failed().size(), when,
                    resumePolicy().maxResumes(), sample(done.failed()));
        if (!done.cancelled().isEmpty())
            LOG.warn("{} run(s) were being stopped {}; marked cancelled: {}", done.cancelled().size(), when,
                    sample(done.cancelled()));
        for (var id : done.resumed()) {
            try {
                resumeOne(id);
            } catch (RuntimeException e) {
                LOG.error("Run {} could not be resumed", id, e);
            }
        }
        if (!durability.resumers().isEmpty())
            for (var id : done.ended()) durability.journal().record(id).ifPresent(r -> tell(r, resumer -> resumer.ended(r)));
        return total;
    }

    /**
     * Stops executing the live runs another node has taken over (this node's lease had expired): their events and
     * records are the new owner's now. Returns how many.
     */
    public int abandonTakenOver() {
        if (durability == null) return 0;
        var journal = durability.journal();
        int n = 0;
        for (var run : live.values()) {
            if (!run.durable()) continue;
            var placement = journal.placement(run.id());
            if (placement.isPresent() && !journal.nodeId().equals(placement.get().nodeId())) {
                LOG.warn("Run {} was taken over by node {} while this node's lease had expired; stopping it here",
                        run.id(), placement.get().nodeId());
                run.cancel(TAKEN_OVER);
                n++;
            }
        }
        return n;
    }

    private static String sample(List<String> ids) {
        return (ids.size() > 10 ? ids.subList(0, 10) + " …" : ids).toString();
    }

    /**
     * Executes claimed run {@code id} again from what it saved: it announces {@code run.resumed}, waits for a
     * concurrency slot (its server's and its key's), and ends failed when its key was revoked or its budget is spent.
     */
    private void resumeOne(String id) {
        var journal = durability.journal();
        var saved = journal.saved(id);
        if (saved.isEmpty()) {
            LOG.warn("Run {} was claimed for resuming but its saved request is gone", id);
            return;
        }
        var s = saved.get();
        var run = LiveRun.resumable(id, s.request(), journal, clock, durability.approvalTimeout(), metrics, s.record(),
                s.resumption());
        if (!s.interactive()) run.withoutWaiting();
        run.restoreSteering(s.pendingSteering());
        journal.reopen(id, s.record().lastSeq());
        live.put(id, run);
        run.announceResumed(journal.nodeId());
        var record = run.record();
        tell(record, resumer -> resumer.resumed(run, record));
        Thread.ofVirtual().name(id).start(() -> {
            MDC.put(RUN_ID, id);
            RunRejectedException refused;
            try {
                refused = admitResumed(s.request());
            } catch (InterruptedException e) {
                return;
            }
            if (refused == null) {
                execute(run);
                return;
            }
            if (refused.reason() == Reason.DRAINING) { // this server stops first: the run stays live for the next
                live.remove(id);
                journal.forget(id);
                run.complete(RunResult.of(StopReason.INTERRUPTED, null, Usage.ZERO, null, DRAINING, List.of()));
                return;
            }
            var result = RunResult.of(StopReason.INTERNAL_ERROR, null, Usage.ZERO,
                    refused.reason().name().toLowerCase(Locale.ROOT), refused.getMessage(), List.of());
            try {
                run.finish(new RunEvent.Failed(result.errorCode(), result.error(), null, null, null));
            } finally {
                live.remove(id);
                journal.forget(id);
                run.complete(result);
            }
        });
    }

    /** Tells the plugin that follows the runs of {@code record}'s origin kind (if one does) what became of it. */
    private void tell(RunRecord record, Consumer<Runs.Resumer> what) {
        var origin = record.origin();
        if (origin == null || origin.indexOf(':') < 0) return;
        var kind = origin.substring(0, origin.indexOf(':'));
        for (var resumer : durability.resumers()) {
            if (!resumer.originKind().equals(kind)) continue;
            try {
                what.accept(resumer);
            } catch (RuntimeException e) {
                LOG.error("Run {}: the plugin following {} runs failed to take it over", record.runId(), kind, e);
            }
        }
    }

    /**
     * Counts a resumed run in, waiting while the server or its key is at its cap; returns why it may not go on (its
     * key revoked, its budget spent, this server draining), or null once it is counted in.
     */
    private RunRejectedException admitResumed(RunRequest request) throws InterruptedException {
        var owner = request.owner();
        var refused = keyRefusal(owner);
        if (refused.isPresent()) return refused.get();
        int cap = policies.maxConcurrentRuns(owner);
        lock.lock();
        try {
            while (true) {
                if (draining) return new RunRejectedException(Reason.DRAINING, DRAINING);
                int mine = activeByOwner.getOrDefault(owner, 0);
                boolean full = (maxConcurrentRuns > 0 && active >= maxConcurrentRuns) || (cap > 0 && mine >= cap);
                if (!full) {
                    active++;
                    activeByOwner.put(owner, mine + 1);
                    return null;
                }
                idle.await(1, java.util.concurrent.TimeUnit.SECONDS);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Retention sweep ({@code runs.retention_days}); returns the runs deleted. */
    public int prune(Duration retention) {
        if (durability == null) return 0;
        var now = clock.instant();
        return durability.journal().prune(now.minus(retention), now.minus(durability.idempotencyRetention()));
    }

    private static boolean looksLikeRunId(String id) {
        return id != null && id.length() <= 64 && id.startsWith("run_");
    }

    /**
     * Live runs started on an owner's behalf (with a {@link dev.caduceus.spi.agent.RunRequest#origin()},
     * a scheduled job's for instance), for {@code active_job_runs}.
     */
    public int activeBackgroundRuns() {
        return (int) live.values().stream().filter(r -> r.request().origin() != null).count();
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
        cancelAll(SHUTDOWN);
        if (!awaitIdle(Duration.ofSeconds(5))) LOG.warn("{} run(s) did not stop in time", activeRuns());
    }
}
