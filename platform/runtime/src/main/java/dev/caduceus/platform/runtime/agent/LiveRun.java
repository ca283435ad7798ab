package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.message.Message.ToolCallRef;
import dev.caduceus.spi.agent.Runs.ToolOutputs;
import java.util.Map;
import dev.caduceus.platform.runtime.journal.EventLog;
import dev.caduceus.platform.runtime.journal.EventTypes;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.agent.SteerOutcome;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import dev.caduceus.spi.tool.ToolContext.ApprovalRequest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One run as {@link RunService} tracks it while it is live: its request, cancellation, steering
 * inbox, pending approvals, status, and the numbering of its events (1, 2, 3…). Every change goes
 * through {@link #append} or a status update under one lock, so events from the run thread, its tool
 * threads (approvals) and request threads (steer, approval answers, stop) get dense sequence numbers
 * and the status record always matches the last event.
 *
 * <p>A <em>durable</em> run journals a reduced stream: {@code Started} and {@code UsageReported}
 * are not journaled (usage arrives with the terminal event), except a {@code UsageReported} naming the model route's
 * deployment that answered (when routes are configured, the journal keeps which one did), the reasoning of one model call is
 * coalesced into one entry, and tool arguments and results are left out (a client sees their
 * previews; the model saw the rest). Ephemeral runs (chat, Responses) pass every event through unchanged.
 *
 * <p>Threading: thread-safe.
 */
final class LiveRun implements RunHandle {
    /** Reasoning kept per model call for {@code reasoning.available}. */
    static final int MAX_REASONING_CHARS = 500;

    private final String id;
    private final RunRequest request;
    private final boolean durable;
    /** Whether it may wait on people and its caller (approvals, the caller's tool outputs): durable ones, unless told not to. */
    private volatile boolean interactive;
    private final EventLog log;
    private final Clock clock;
    private final Duration approvalTimeout;
    private final AgentMetrics metrics;
    private final RunCancellation cancellation = new RunCancellation();
    private final ConcurrentLinkedQueue<String> steering = new ConcurrentLinkedQueue<>();
    private final CompletableFuture<RunResult> result = new CompletableFuture<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Instant createdAt;
    // guarded by lock
    private final LinkedHashMap<String, PendingApproval> approvals = new LinkedHashMap<>();
    private final StringBuilder reasoning = new StringBuilder();
    private long seq;
    private RunStatus status = RunStatus.QUEUED;
    private Instant updatedAt;
    private String lastEvent;
    private String output;
    private Usage usage;
    private String error;
    private String pendingSteer;
    /** The caller's own calls the run waits for, and where their outputs arrive; set with ToolCallsRequired. */
    private List<ToolCallRef> toolCalls = List.of();
    private CompletableFuture<Map<String, String>> toolOutputs;
    /** Where a resumable run saves its steps; null for a run that is not resumed when its server stops. */
    private final dev.caduceus.platform.runtime.journal.RunJournal checkpoints;
    /** What the earlier process of a resumed run saved; null for a run that starts now. */
    private final dev.caduceus.spi.agent.RunContext.Resumption resumption;
    private final RunRecord.Resumed resumed;
    /** The steps saved so far (the run thread's; a resumed run starts from its earlier process's). */
    private int steps;

    private record PendingApproval(RunEvent.ApprovalRequested request, CompletableFuture<ApprovalChoice> answer) {}

    LiveRun(String id, RunRequest request, boolean durable, EventLog log, Clock clock, Duration approvalTimeout) {
        this(id, request, durable, log, clock, approvalTimeout, AgentMetrics.none());
    }

    /** @param metrics where approvals asked and timed out are counted */
    LiveRun(String id, RunRequest request, boolean durable, EventLog log, Clock clock, Duration approvalTimeout,
            AgentMetrics metrics) {
        this(id, request, durable, log, clock, approvalTimeout, metrics, null, null, null);
    }

    /**
     * A durable run whose steps are saved in {@code journal} so that it can be resumed when its server stops, or
     * (with {@code saved}) one being resumed: its id, creation time, event numbering and resumptions continue from
     * its record, and {@code resumption} is what it had saved.
     */
    static LiveRun resumable(String id, RunRequest request, dev.caduceus.platform.runtime.journal.RunJournal journal,
                             Clock clock, Duration approvalTimeout, AgentMetrics metrics, RunRecord saved,
                             dev.caduceus.spi.agent.RunContext.Resumption resumption) {
        return new LiveRun(id, request, true, journal, clock, approvalTimeout, metrics, journal, saved, resumption);
    }

    private LiveRun(String id, RunRequest request, boolean durable, EventLog log, Clock clock, Duration approvalTimeout,
                    AgentMetrics metrics, dev.caduceus.platform.runtime.journal.RunJournal checkpoints, RunRecord saved,
                    dev.caduceus.spi.agent.RunContext.Resumption resumption) {
        this.checkpoints = checkpoints;
        this.resumption = resumption;
        this.resumed = saved == null ? null : saved.resumed();
        this.steps = resumption == null ? 0 : resumption.messages().size();
        this.metrics = metrics;
        this.id = id;
        this.request = request;
        this.durable = durable;
        this.interactive = durable;
        this.log = log;
        this.clock = clock;
        this.approvalTimeout = approvalTimeout;
        this.createdAt = saved == null ? clock.instant() : saved.createdAt();
        this.updatedAt = saved == null ? createdAt : saved.updatedAt();
        this.seq = saved == null ? 0 : saved.lastSeq();
    }

    @Override
    public String id() {
        return id;
    }

    RunRequest request() {
        return request;
    }

    /** Before it starts: it never waits on people or its caller ({@link dev.caduceus.spi.agent.RunOptions#interactive()}). */
    LiveRun withoutWaiting() {
        interactive = false;
        return this;
    }

    boolean durable() {
        return durable;
    }

    /** Whether the run saves its steps, so that another process can resume it. */
    boolean resumable() {
        return checkpoints != null;
    }

    RunCancellation cancellation() {
        return cancellation;
    }

    @Override
    public RunSubscription subscribe(long afterSeq) {
        return new LogSubscription(log.pinned(id), id, afterSeq);
    }

    @Override
    public RunResult await() throws InterruptedException {
        try {
            return result.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Cancels without the {@code stopping} status (client gone, shutdown); {@link #stop} is the runs API's stop. */
    @Override
    public void cancel(String reason) {
        cancellation.cancel(reason);
    }

    /** The status record as of now. */
    RunRecord record() {
        lock.lock();
        try {
            var oldest = approvals.isEmpty() ? null : approvals.values().iterator().next().request();
            return new RunRecord(id, status, createdAt, updatedAt, request.sessionId() != null ? request.sessionId() : id,
                    request.metadata().getOrDefault("model", request.model()), request.origin(), seq, lastEvent, output, usage, error,
                    pendingSteer, oldest, request.owner(), status == RunStatus.REQUIRES_ACTION ? toolCalls : List.of(), resumed);
        } finally {
            lock.unlock();
        }
    }

    /** A resumed run's first event: {@code node} took it up after {@code step} model calls. */
    void announceResumed(String node) {
        append(new RunEvent.Resumed(node, resumption == null ? 0 : resumption.modelCalls(),
                resumed == null ? 1 : resumed.count()));
    }

    /** The run thread began: {@code queued} → {@code running}. */
    void markRunning() {
        lock.lock();
        try {
            if (status != RunStatus.QUEUED) return;
            status = RunStatus.RUNNING;
            touch();
            if (durable) log.update(record());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stop: {@code stopping} (committed before this returns), then the
     * cancellation fires, which resolves pending approvals as deny and interrupts the agent. False
     * when the run has already ended.
     */
    boolean stop() {
        lock.lock();
        try {
            if (status.isTerminal() || result.isDone()) return false;
            if (status != RunStatus.STOPPING) {
                status = RunStatus.STOPPING;
                lastEvent = "stopping";
                touch();
                if (durable) log.update(record());
            }
        } finally {
            lock.unlock();
        }
        log.flush();
        cancellation.cancel("stopped");
        return true;
    }

    /** Before it starts again: steering its earlier process accepted (and journaled) but had not applied yet. */
    void restoreSteering(java.util.List<String> texts) {
        steering.addAll(texts);
    }

    /** Queues steering text and journals {@code run.steered}; the loop applies it after the current tool batch. */
    SteerOutcome steer(String text) {
        lock.lock();
        try {
            if (status != RunStatus.RUNNING && status != RunStatus.REQUIRES_ACTION) return SteerOutcome.NOT_RUNNING;
            if (cancellation.isCancelled() || result.isDone()) return SteerOutcome.NOT_ACCEPTED;
            steering.add(text);
            append(new RunEvent.Steered(text));
            return SteerOutcome.ACCEPTED;
        } finally {
            lock.unlock();
        }
    }

    /** Whether an approval is pending (the run waits for a person). */
    boolean waitingForApproval() {
        lock.lock();
        try {
            return !approvals.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** Answers pending approvals (once, session, always or deny; the oldest, one by id, or all). */
    ApprovalAnswer.Outcome approve(ApprovalAnswer answer) {
        var resolved = new ArrayList<PendingApproval>();
        lock.lock();
        try {
            if (!durable || status.isTerminal() || result.isDone()) return new ApprovalAnswer.Outcome.NotActive();
            if (approvals.isEmpty()) return new ApprovalAnswer.Outcome.NotPending();
            if (answer.requestId() != null) {
                var one = approvals.remove(answer.requestId());
                if (one == null) return new ApprovalAnswer.Outcome.UnknownRequest();
                resolved.add(one);
            } else if (answer.all()) {
                resolved.addAll(approvals.values());
                approvals.clear();
            } else {
                var oldest = approvals.keySet().iterator().next();
                resolved.add(approvals.remove(oldest));
            }
            var choice = answer.choice().name().toLowerCase(Locale.ROOT);
            append(new RunEvent.ApprovalResolved(resolved.getFirst().request().approvalId(), choice, "user", resolved.size()));
        } finally {
            lock.unlock();
        }
        resolved.forEach(p -> p.answer().complete(answer.choice()));
        return new ApprovalAnswer.Outcome.Resolved(resolved.size());
    }

    /**
     * Asks a person (tool thread): journals the request, waits for an answer, the timeout or a stop.
     * Ephemeral runs have no channel: {@code DENY} at once.
     */
    ApprovalChoice requestApproval(ApprovalRequest ask) throws InterruptedException {
        if (!interactive) return ApprovalChoice.DENY;
        var requestId = HexFormat.of().formatHex(randomBytes());
        var pending = new PendingApproval(new RunEvent.ApprovalRequested(requestId, ask.command(), ask.description(),
                approvalTimeout.toSeconds(), ask.pattern(), ask.allowPermanent()), new CompletableFuture<>());
        lock.lock();
        try {
            if (cancellation.isCancelled() || result.isDone()) return ApprovalChoice.DENY;
            approvals.put(requestId, pending);
            append(pending.request());
        } finally {
            lock.unlock();
        }
        metrics.approvalsAsked().inc();
        try (var onStop = cancellation.onCancel(() -> resolveAll("stop"))) {
            return pending.answer().get(approvalTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            lock.lock();
            try {
                if (approvals.remove(requestId) != null) {
                    append(new RunEvent.ApprovalResolved(requestId, "deny", "timeout", 1));
                    metrics.approvalsTimedOut().inc();
                    return ApprovalChoice.TIMED_OUT;
                }
            } finally {
                lock.unlock();
            }
            return pending.answer().getNow(ApprovalChoice.DENY);
        } catch (ExecutionException e) {
            return ApprovalChoice.DENY;
        } catch (Exception e) {
            if (e instanceof InterruptedException ie) throw ie;
            return ApprovalChoice.DENY;
        }
    }

    /**
     * Waits (run thread) for the caller's outputs of the calls its {@code ToolCallsRequired} announced: null when the
     * run is stopped, or when nobody answers within the approval timeout (then the run is cancelled, saying so).
     */
    Map<String, String> awaitToolOutputs() throws InterruptedException {
        CompletableFuture<Map<String, String>> answer;
        lock.lock();
        try {
            answer = toolOutputs;
        } finally {
            lock.unlock();
        }
        if (answer == null) return null;
        try (var onStop = cancellation.onCancel(() -> answer.complete(null))) {
            return answer.get(approvalTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            cancellation.cancel("no tool outputs within " + approvalTimeout.toSeconds() + " s");
            return null;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) { // ExecutionException, or the hook's close
            return null;
        }
    }

    /** Hands the caller's outputs to the waiting run thread: exactly the pending calls, else why not. */
    ToolOutputs submitToolOutputs(Map<String, String> given) {
        CompletableFuture<Map<String, String>> answer;
        var ordered = new LinkedHashMap<String, String>();
        lock.lock();
        try {
            if (status != RunStatus.REQUIRES_ACTION || toolOutputs == null || cancellation.isCancelled() || result.isDone())
                return new ToolOutputs.NotWaiting();
            var pending = toolCalls.stream().map(ToolCallRef::id).toList();
            var unknown = given.keySet().stream().filter(id -> !pending.contains(id)).sorted().toList();
            if (!unknown.isEmpty())
                return new ToolOutputs.Mismatch("No pending tool call " + String.join(", ", unknown)
                        + " on run " + id + "; pending: " + String.join(", ", pending));
            var missing = pending.stream().filter(id -> !given.containsKey(id)).toList();
            if (!missing.isEmpty())
                return new ToolOutputs.Mismatch("Missing outputs for tool call "
                        + String.join(", ", missing) + " on run " + id);
            for (var call : pending) ordered.put(call, given.get(call));
            answer = toolOutputs;
            toolOutputs = null;
            toolCalls = List.of();
            status = RunStatus.RUNNING;
            touch();
            log.update(record());
        } finally {
            lock.unlock();
        }
        log.flush();
        answer.complete(ordered);
        return new ToolOutputs.Accepted(ordered.size());
    }

    /** Resolves every pending approval as deny ({@code by}: {@code stop}). */
    private void resolveAll(String by) {
        var resolved = new ArrayList<PendingApproval>();
        lock.lock();
        try {
            if (approvals.isEmpty()) return;
            resolved.addAll(approvals.values());
            approvals.clear();
            // a resumable run stopped by the shutdown is not answered: the process that resumes it asks again
            if (!(resumable() && RunService.SHUTDOWN.equals(cancellation.reason())))
                append(new RunEvent.ApprovalResolved(resolved.getFirst().request().approvalId(), "deny", by, resolved.size()));
        } finally {
            lock.unlock();
        }
        resolved.forEach(p -> p.answer().complete(ApprovalChoice.DENY));
    }

    /**
     * Writes the terminal event and waits until it is committed. Steering that arrived after the
     * final answer is reported as {@code pendingSteer} of a completed run.
     */
    void finish(RunEvent terminal) {
        lock.lock();
        try {
            if (terminal instanceof RunEvent.Completed c && !steering.isEmpty()) {
                terminal = new RunEvent.Completed(c.output(), c.stopReason(), c.error(), c.usage(),
                        String.join("\n", steering));
                steering.clear();
            }
            for (var p : approvals.values()) p.answer().complete(ApprovalChoice.DENY);
            approvals.clear();
            append(terminal);
        } finally {
            lock.unlock();
        }
        log.flush();
    }

    void complete(RunResult value) {
        result.complete(value);
    }

    /** Journals one event and moves the status record along with it. Callers hold no lock or this one. */
    private void append(RunEvent event) {
        lock.lock();
        try {
            if (durable) {
                switch (event) {
                    case RunEvent.Started s -> { return; }
                    case RunEvent.UsageReported u when u.deployment() == null -> { return; }
                    case RunEvent.ReasoningDelta r -> {
                        int room = MAX_REASONING_CHARS - reasoning.length();
                        if (room > 0) reasoning.append(r.text(), 0, Math.min(room, r.text().length()));
                        return;
                    }
                    default -> {
                        if (!reasoning.isEmpty()) {
                            commit(new RunEvent.ReasoningDelta(reasoning.toString()));
                            reasoning.setLength(0);
                        }
                    }
                }
                event = switch (event) {
                    case RunEvent.ToolCallStarted t -> new RunEvent.ToolCallStarted(t.callId(), t.tool(), null,
                            t.argumentsPreview(), t.emoji());
                    case RunEvent.ToolCallFinished t -> new RunEvent.ToolCallFinished(t.callId(), t.tool(),
                            t.durationMillis(), t.error(), null, t.outputPreview());
                    default -> event;
                };
            }
            commit(event);
        } finally {
            lock.unlock();
        }
    }

    private void commit(RunEvent event) {
        seq++;
        touch();
        lastEvent = EventTypes.name(event);
        switch (event) {
            case RunEvent.ApprovalRequested a -> {
                if (status == RunStatus.RUNNING) status = RunStatus.WAITING_FOR_APPROVAL;
            }
            case RunEvent.ApprovalResolved a -> {
                if (approvals.isEmpty() && status == RunStatus.WAITING_FOR_APPROVAL) status = RunStatus.RUNNING;
            }
            case RunEvent.ToolCallsRequired t -> {
                if (durable && status == RunStatus.RUNNING) { // the run waits; answers may come at once
                    status = RunStatus.REQUIRES_ACTION;
                    toolCalls = t.calls();
                    toolOutputs = new CompletableFuture<>();
                }
            }
            case RunEvent.Completed c -> {
                status = RunStatus.COMPLETED;
                output = c.output();
                usage = c.usage();
                pendingSteer = c.pendingSteer();
            }
            case RunEvent.Failed f -> {
                status = RunStatus.FAILED;
                error = f.message();
            }
            case RunEvent.Cancelled c -> status = RunStatus.CANCELLED;
            case RunEvent.Interrupted i -> {
                status = RunStatus.INTERRUPTED;
                error = i.reason();
            }
            default -> { }
        }
        log.append(new JournalEntry(id, seq, updatedAt, event), durable ? record() : null);
    }

    private void touch() {
        var now = clock.instant();
        updatedAt = now.isBefore(updatedAt) ? updatedAt : now;
    }

    private static byte[] randomBytes() {
        var bytes = new byte[16];
        ThreadLocalRandom.current().nextBytes(bytes);
        return bytes;
    }

    /** The context handed to the runtime; it refuses terminal events, which the service writes. */
    RunContext context() {
        return new RunContext() {
            @Override
            public String runId() {
                return id;
            }

            @Override
            public void emit(RunEvent event) {
                if (event.isTerminal())
                    throw new IllegalArgumentException("terminal events are written by the host: " + event);
                append(event);
            }

            @Override
            public void commit() {
                if (checkpoints != null) checkpoints.flush();
            }

            @Override
            public void checkpoint(dev.caduceus.spi.message.Message message, int modelCalls, Usage usage, boolean now) {
                if (checkpoints == null) return;
                checkpoints.checkpoint(id, ++steps, message, modelCalls, usage);
                if (now) commit();
            }

            @Override
            public dev.caduceus.spi.agent.RunContext.Resumption resumption() {
                return resumption;
            }

            @Override
            public Cancellation cancellation() {
                return cancellation;
            }

            @Override
            public List<String> drainSteering() {
                var out = new ArrayList<String>();
                for (String s; (s = steering.poll()) != null; ) out.add(s);
                return out;
            }

            @Override
            public boolean approvalChannel() {
                return interactive;
            }

            @Override
            public ApprovalChoice requestApproval(ApprovalRequest request) throws InterruptedException {
                return LiveRun.this.requestApproval(request);
            }

            @Override
            public boolean toolOutputChannel() {
                return interactive;
            }

            @Override
            public Map<String, String> awaitToolOutputs(List<ToolCallRef> calls)
                    throws InterruptedException {
                if (!interactive) throw new UnsupportedOperationException("this run has no tool output channel");
                return LiveRun.this.awaitToolOutputs();
            }
        };
    }
}
