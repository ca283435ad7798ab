package dev.caduceus.testkit;

import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunStart;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.SteerOutcome;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A fake run service: a test scripts the events and the result each started run produces
 * ({@link #script}); every {@link #start} plays the next script on its own virtual thread (the last
 * script repeats). Records the requests it received and the cancellations. Thread-safe.
 *
 * <p>On its way out (issue 18): it plays runs no real host produces. Test a plugin on
 * {@link TestHost} with a {@link ScriptedUpstream}; the last users are endpoint-responses' store,
 * stored-history and tenancy tests (tenancy waits for named keys on {@code TestHost}).
 */
public final class ScriptedRuns implements Runs {

    /** One scripted event, emitted after {@code delay}. */
    public record Step(RunEvent event, Duration delay) {
        public static Step of(RunEvent event) { return new Step(event, Duration.ZERO); }
    }

    /**
     * What a started run does: emits {@code steps}, then (with {@code hangUntilCancelled}) waits for
     * {@link RunHandle#cancel}, and ends. If no step is terminal, a terminal event derived from
     * {@code result} is appended; a cancelled hanging run ends with {@code Cancelled} instead.
     */
    public record Script(List<Step> steps, RunResult result, boolean hangUntilCancelled) {
        public Script {
            steps = List.copyOf(steps);
        }

        /** Emits {@code events} without delay and ends with {@code result}. */
        public static Script of(RunResult result, RunEvent... events) {
            return new Script(List.of(events).stream().map(Step::of).toList(), result, false);
        }

        /** Emits {@code events}, then waits until cancelled. */
        public static Script hanging(RunEvent... events) {
            return new Script(List.of(events).stream().map(Step::of).toList(), null, true);
        }
    }

    /** A recorded cancellation. */
    public record Cancellation(String runId, String reason) {}

    private final Deque<Script> scripts = new ArrayDeque<>();
    private final List<RunRequest> requests = new ArrayList<>();
    private final List<Cancellation> cancellations = new ArrayList<>();
    private final Map<String, ScriptedRun> runs = new HashMap<>();
    private RunRejectedException admissionFailure;

    /** Queues a script for the next start. */
    public synchronized ScriptedRuns script(Script script) {
        scripts.add(script);
        return this;
    }

    /** Makes {@link #checkAdmission} and {@link #start} throw {@code failure} (null to admit again). */
    public synchronized ScriptedRuns rejectWith(RunRejectedException failure) {
        admissionFailure = failure;
        return this;
    }

    public synchronized List<RunRequest> requests() { return List.copyOf(requests); }

    public synchronized List<Cancellation> cancellations() { return List.copyOf(cancellations); }

    @Override
    public synchronized void checkAdmission() throws RunRejectedException {
        if (admissionFailure != null) throw admissionFailure;
    }

    @Override
    public void checkReady() throws RunRejectedException {
        checkAdmission();
    }

    @Override
    public RunStart start(RunRequest request, RunOptions options) throws RunRejectedException {
        if (options.durable()) throw new UnsupportedOperationException("ScriptedRuns plays ephemeral runs only");
        return new RunStart(start(request), RunStatus.RUNNING, false);
    }

    @Override
    public RunResult call(RunRequest request, java.util.function.Consumer<RunHandle> started)
            throws RunRejectedException, InterruptedException {
        var handle = start(request);
        started.accept(handle);
        return handle.await();
    }

    /** Plays the next script on a virtual thread. */
    public synchronized RunHandle start(RunRequest request) throws RunRejectedException {
        checkAdmission();
        if (scripts.isEmpty()) throw new IllegalStateException("ScriptedRuns: call script(...) before start");
        var script = scripts.size() > 1 ? scripts.poll() : scripts.peek();
        requests.add(request);
        var id = "run_" + HexFormat.of().formatHex(randomBytes());
        var run = new ScriptedRun(id, script);
        runs.put(id, run);
        Thread.ofVirtual().name("scripted-" + id).start(run::play);
        return run;
    }

    private static byte[] randomBytes() {
        var bytes = new byte[16];
        ThreadLocalRandom.current().nextBytes(bytes);
        return bytes;
    }

    @Override
    public synchronized Optional<RunHandle> find(String runId) { return Optional.ofNullable(runs.get(runId)); }

    @Override public Optional<RunRecord> record(String runId) { return Optional.empty(); }

    @Override public RunQuery.Page list(RunQuery query) { return new RunQuery.Page(List.of(), false); }

    @Override
    public boolean stop(String runId) {
        var run = find(runId);
        run.ifPresent(r -> r.cancel("stopped"));
        return run.isPresent();
    }

    @Override
    public ApprovalAnswer.Outcome approve(String runId, ApprovalAnswer answer) {
        return find(runId).isPresent() ? new ApprovalAnswer.Outcome.NotActive() : new ApprovalAnswer.Outcome.RunNotFound();
    }

    @Override
    public SteerOutcome steer(String runId, String text) {
        return find(runId).isPresent() ? SteerOutcome.NOT_ACCEPTED : SteerOutcome.RUN_NOT_FOUND;
    }

    private synchronized void recordCancel(String runId, String reason) {
        cancellations.add(new Cancellation(runId, reason));
    }

    private final class ScriptedRun implements RunHandle {
        private final String id;
        private final Script script;
        private final List<JournalEntry> journal = new ArrayList<>();
        private final CompletableFuture<RunResult> result = new CompletableFuture<>();
        private final CountDownLatch cancelled = new CountDownLatch(1);
        private volatile String cancelReason;

        ScriptedRun(String id, Script script) {
            this.id = id;
            this.script = script;
        }

        void play() {
            try {
                var text = new StringBuilder();
                for (var step : script.steps()) {
                    if (!step.delay().isZero()) Thread.sleep(step.delay());
                    if (step.event() instanceof RunEvent.TextDelta d) text.append(d.text());
                    append(step.event());
                    if (step.event().isTerminal()) {
                        result.complete(script.result());
                        return;
                    }
                }
                if (script.hangUntilCancelled()) {
                    cancelled.await();
                    var partial = text.isEmpty() ? null : text.toString();
                    append(new RunEvent.Cancelled(cancelReason, partial, Usage.ZERO));
                    result.complete(RunResult.of(StopReason.INTERRUPTED, partial, Usage.ZERO, "agent_error",
                            "Interrupted", List.of()));
                    return;
                }
                append(terminalFor(script.result()));
                result.complete(script.result());
            } catch (InterruptedException e) {
                result.completeExceptionally(e);
            }
        }

        private RunEvent terminalFor(RunResult r) {
            return switch (r.status()) {
                case FAILED -> new RunEvent.Failed(r.errorCode(), r.error(), r.stopReason(), r.output(), r.usage());
                case CANCELLED, INTERRUPTED -> new RunEvent.Cancelled(r.error(), r.output(), r.usage());
                default -> new RunEvent.Completed(r.output(), r.stopReason(), r.error(), r.usage());
            };
        }

        private void append(RunEvent event) {
            synchronized (journal) {
                journal.add(new JournalEntry(id, journal.size() + 1, Instant.now(), event));
                journal.notifyAll();
            }
        }

        @Override public String id() { return id; }

        @Override
        public RunSubscription subscribe(long afterSeq) {
            return new RunSubscription() {
                private long seq = afterSeq;
                private boolean finished;

                @Override public String runId() { return id; }

                @Override
                public Optional<JournalEntry> next(Duration timeout) throws InterruptedException {
                    if (finished) return Optional.empty();
                    long deadline = System.nanoTime() + timeout.toNanos();
                    synchronized (journal) {
                        while (journal.size() <= seq) {
                            long left = deadline - System.nanoTime();
                            if (left <= 0) return Optional.empty();
                            journal.wait(Math.max(1, left / 1_000_000));
                        }
                        var entry = journal.get((int) seq++);
                        finished = entry.event().isTerminal();
                        return Optional.of(entry);
                    }
                }

                @Override public boolean finished() { return finished; }

                @Override public void close() {}
            };
        }

        @Override
        public RunResult await() throws InterruptedException {
            try {
                return result.get();
            } catch (ExecutionException e) {
                throw new IllegalStateException("scripted run failed", e.getCause());
            }
        }

        @Override
        public void cancel(String reason) {
            recordCancel(id, reason);
            if (cancelReason == null) cancelReason = reason;
            cancelled.countDown();
        }
    }

    /** A completed result with {@code output} and the given usage, for scripts. */
    public static RunResult completed(String output, Usage usage) {
        return RunResult.completed(output, usage, List.of());
    }
}
