package dev.caduceus.testkit;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunStart;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.SteerOutcome;
import dev.caduceus.spi.message.Usage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * <b>On its way out:</b> test plugins on the real host with {@link TestHost} instead; this fake has
 * drifted from the platform's run state machine. Its last user is endpoint-jobs' {@code JobsFixture};
 * delete it (and its test) once that is converted.
 *
 * <p>A fake of the host's durable run service (the runs API side of {@link Runs}): status records, a
 * per-run journal with dense sequence numbers, idempotency keys, listing with the keyset cursor,
 * stop, approvals and steering. Nothing executes: a test submits runs, then drives them with
 * {@link #append} (which moves status, {@code last_seq} and {@code last_event} the way the journal
 * does) or seeds finished ones with {@link #put}. Approval and steer answers are scripted with
 * {@link #approvalOutcome} and {@link #steerOutcome}. Records what it was asked. Thread-safe (one
 * monitor); subscribers wait on it for appended entries.
 */
public final class FakeDurableRuns implements Runs {
    private static final Map<Class<?>, String> LOGICAL_NAMES = logicalNames();

    /** One recorded {@link #start}. */
    public record Submission(RunRequest request, RunOptions options, String runId, boolean replayed) {}

    private final Clock clock;
    private final Map<String, FakeRun> runs = new LinkedHashMap<>();
    private final Map<String, String[]> keys = new HashMap<>(); // key -> {fingerprint, run id}
    private final List<Submission> submissions = new ArrayList<>();
    private final List<RunQuery> queries = new ArrayList<>();
    private final List<String> stops = new ArrayList<>();
    private final List<ApprovalAnswer> answers = new ArrayList<>();
    private final List<String> steers = new ArrayList<>();
    private RunRejectedException admissionFailure;
    private ApprovalAnswer.Outcome approvalOutcome;
    private SteerOutcome steerOutcome = SteerOutcome.ACCEPTED;
    private RuntimeException steerFailure;

    public FakeDurableRuns(Clock clock) {
        this.clock = clock;
    }

    // ---- scripting -------------------------------------------------------------------------

    /** Refuses like the host: draining and a missing model before anything else; the cap only in submit. */
    @Override
    public synchronized void checkReady() throws RunRejectedException {
        if (admissionFailure != null && admissionFailure.reason() != RunRejectedException.Reason.AT_CAPACITY)
            throw admissionFailure;
    }

    /** Makes admission refuse new runs with {@code failure} (null admits again); replays still pass. */
    public synchronized FakeDurableRuns rejectWith(RunRejectedException failure) {
        admissionFailure = failure;
        return this;
    }

    /** What {@link #approve(String, ApprovalAnswer)} answers for a known run (default: {@code Resolved(1)}). */
    public synchronized FakeDurableRuns approvalOutcome(ApprovalAnswer.Outcome outcome) {
        approvalOutcome = outcome;
        return this;
    }

    /** What {@link #steer} answers for a known run (default {@code ACCEPTED}). */
    public synchronized FakeDurableRuns steerOutcome(SteerOutcome outcome) {
        steerOutcome = outcome;
        return this;
    }

    /** Makes {@link #steer} throw {@code failure} (null to stop). */
    public synchronized FakeDurableRuns steerFailure(RuntimeException failure) {
        steerFailure = failure;
        return this;
    }

    /** Stores {@code record} as is (a run from an earlier process, a job run, a finished run). */
    public synchronized FakeDurableRuns put(RunRecord record) {
        runs.computeIfAbsent(record.runId(), FakeRun::new).record = record;
        return this;
    }

    /**
     * Appends {@code events} to the run's journal, stamped with the clock, and updates its record:
     * {@code last_seq}, {@code last_event} (the logical name), and the status an event implies
     * (running, waiting for approval, or the terminal status with output, usage or error).
     */
    public synchronized FakeDurableRuns append(String runId, RunEvent... events) {
        var run = require(runId);
        for (var event : events) {
            var entry = new JournalEntry(runId, run.journal.size() + 1, clock.instant(), event);
            run.journal.add(entry);
            run.record = afterEvent(run.record, entry);
        }
        notifyAll();
        return this;
    }

    private static RunRecord afterEvent(RunRecord r, JournalEntry entry) {
        var status = r.status() == RunStatus.QUEUED ? RunStatus.RUNNING : r.status();
        String output = r.output(), error = r.error(), pendingSteer = r.pendingSteer();
        Usage usage = r.usage();
        RunEvent.ApprovalRequested approval = r.approval();
        switch (entry.event()) {
            case RunEvent.ApprovalRequested a -> {
                status = RunStatus.WAITING_FOR_APPROVAL;
                approval = a;
            }
            case RunEvent.ApprovalResolved a -> {
                status = status == RunStatus.STOPPING ? status : RunStatus.RUNNING;
                approval = null;
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
                error = "The server restarted before this run settled.";
            }
            default -> {}
        }
        return new RunRecord(r.runId(), status, r.createdAt(), entry.timestamp(), r.sessionId(), r.model(), r.jobId(),
                entry.seq(), LOGICAL_NAMES.get(entry.event().getClass()), output, usage, error, pendingSteer, approval,
                r.owner());
    }

    // ---- what happened ---------------------------------------------------------------------

    public synchronized List<Submission> submissions() { return List.copyOf(submissions); }

    public synchronized List<RunQuery> queries() { return List.copyOf(queries); }

    public synchronized List<String> stops() { return List.copyOf(stops); }

    public synchronized List<ApprovalAnswer> answers() { return List.copyOf(answers); }

    public synchronized List<String> steers() { return List.copyOf(steers); }

    // ---- Runs ------------------------------------------------------------------------------

    @Override
    public synchronized RunStart start(RunRequest request, RunOptions options) throws RunRejectedException {
        if (!options.durable()) throw new UnsupportedOperationException("FakeDurableRuns keeps durable runs only");
        if (options.idempotencyKey() != null) {
            var known = keys.get(options.idempotencyKey());
            if (known != null && known[0].equals(options.fingerprint())) {
                var run = runs.get(known[1]);
                submissions.add(new Submission(request, options, run.id, true));
                return new RunStart(run, run.record.status(), true);
            }
            if (known != null)
                throw new RunRejectedException(RunRejectedException.Reason.IDEMPOTENCY_CONFLICT,
                        RunRejectedException.IDEMPOTENCY_CONFLICT_MESSAGE);
        }
        checkAdmission();
        var id = "run_" + HexFormat.of().formatHex(randomBytes());
        var now = clock.instant();
        var run = new FakeRun(id);
        run.record = new RunRecord(id, RunStatus.QUEUED, now, now,
                request.sessionId() != null ? request.sessionId() : id,
                request.model() != null ? request.model() : "hermes-agent", request.metadata().get("job_id"), 0, null,
                null, null, null, null, null, request.owner());
        runs.put(id, run);
        if (options.idempotencyKey() != null) keys.put(options.idempotencyKey(), new String[] {options.fingerprint(), id});
        submissions.add(new Submission(request, options, id, false));
        return new RunStart(run, RunStatus.QUEUED, false);
    }

    @Override
    public synchronized void checkAdmission() throws RunRejectedException {
        if (admissionFailure != null) throw admissionFailure;
    }

    @Override
    public RunResult call(RunRequest request, java.util.function.Consumer<RunHandle> started) {
        throw new UnsupportedOperationException("FakeDurableRuns keeps durable runs only: use start with RunOptions.journaled()");
    }

    @Override
    public synchronized Optional<RunHandle> find(String runId) {
        return Optional.ofNullable(runs.get(runId));
    }

    @Override
    public synchronized Optional<RunRecord> record(String runId) {
        return Optional.ofNullable(runs.get(runId)).map(r -> r.record);
    }

    @Override
    public synchronized RunQuery.Page list(RunQuery query) {
        queries.add(query);
        var order = Comparator.comparing(RunRecord::createdAt).thenComparing(RunRecord::runId).reversed();
        var matching = runs.values().stream().map(r -> r.record)
                .filter(r -> query.statuses().isEmpty() || query.statuses().contains(r.status()))
                .filter(r -> query.sessionId() == null || query.sessionId().equals(r.sessionId()))
                .filter(r -> query.jobId() == null || query.jobId().equals(r.jobId()))
                .filter(r -> query.owner() == null || query.owner().equals(r.owner()))
                .filter(r -> query.beforeCreatedAt() == null || r.createdAt().isBefore(query.beforeCreatedAt())
                        || r.createdAt().equals(query.beforeCreatedAt()) && r.runId().compareTo(query.beforeRunId()) < 0)
                .sorted(order).toList();
        var page = matching.subList(0, Math.min(query.limit(), matching.size()));
        return new RunQuery.Page(page, matching.size() > query.limit());
    }

    @Override
    public synchronized boolean stop(String runId) {
        var run = runs.get(runId);
        if (run == null || run.record.status().isTerminal()) return false;
        stops.add(runId);
        var r = run.record;
        run.record = new RunRecord(r.runId(), RunStatus.STOPPING, r.createdAt(), clock.instant(), r.sessionId(),
                r.model(), r.jobId(), r.lastSeq(), "stopping", r.output(), r.usage(), r.error(), r.pendingSteer(),
                r.approval(), r.owner());
        return true;
    }

    @Override
    public synchronized ApprovalAnswer.Outcome approve(String runId, ApprovalAnswer answer) {
        if (!runs.containsKey(runId)) return new ApprovalAnswer.Outcome.RunNotFound();
        answers.add(answer);
        return approvalOutcome != null ? approvalOutcome : new ApprovalAnswer.Outcome.Resolved(1);
    }

    @Override
    public synchronized SteerOutcome steer(String runId, String text) {
        if (steerFailure != null) throw steerFailure;
        if (!runs.containsKey(runId)) return SteerOutcome.RUN_NOT_FOUND;
        steers.add(text);
        return steerOutcome;
    }


    // ---- internals -------------------------------------------------------------------------

    private FakeRun require(String runId) {
        var run = runs.get(runId);
        if (run == null) throw new IllegalArgumentException("FakeDurableRuns: no run " + runId);
        return run;
    }

    private static byte[] randomBytes() {
        var bytes = new byte[16];
        ThreadLocalRandom.current().nextBytes(bytes);
        return bytes;
    }

    private static Map<Class<?>, String> logicalNames() {
        var names = new HashMap<Class<?>, String>();
        for (var type : RunEvent.class.getAnnotation(JsonSubTypes.class).value()) names.put(type.value(), type.name());
        return Map.copyOf(names);
    }

    /** One run: its record and journal, guarded by the enclosing monitor. */
    private final class FakeRun implements RunHandle {
        private final String id;
        private final List<JournalEntry> journal = new ArrayList<>();
        private RunRecord record;

        FakeRun(String id) {
            this.id = id;
        }

        @Override public String id() { return id; }

        @Override
        public RunSubscription subscribe(long afterSeq) {
            return new Subscription(this, afterSeq);
        }

        @Override
        public RunResult await() {
            throw new UnsupportedOperationException("FakeDurableRuns: runs are driven by append(...)");
        }

        @Override
        public void cancel(String reason) {
            stop(id);
        }
    }

    /** Reads one run's journal after a cursor; finished once the terminal entry is read or lies at or before the cursor. */
    private final class Subscription implements RunSubscription {
        private final FakeRun run;
        private long seq;
        private boolean finished;

        Subscription(FakeRun run, long afterSeq) {
            this.run = run;
            this.seq = afterSeq;
        }

        @Override public String runId() { return run.id; }

        @Override
        public Optional<JournalEntry> next(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            synchronized (FakeDurableRuns.this) {
                while (!finished()) {
                    if (run.journal.size() > seq) {
                        var entry = run.journal.get((int) seq++);
                        finished = entry.event().isTerminal();
                        return Optional.of(entry);
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) return Optional.empty();
                    FakeDurableRuns.this.wait(Math.max(1, left / 1_000_000));
                }
                return Optional.empty();
            }
        }

        @Override
        public boolean finished() {
            synchronized (FakeDurableRuns.this) {
                if (!finished && !run.journal.isEmpty() && run.journal.getLast().event().isTerminal()
                        && run.journal.size() <= seq)
                    finished = true;
                return finished;
            }
        }

        @Override public void close() {}
    }
}
