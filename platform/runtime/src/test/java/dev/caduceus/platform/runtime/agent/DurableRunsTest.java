package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.runtime.journal.InMemoryEventLog;
import dev.caduceus.platform.runtime.journal.RunJournal;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.SteerOutcome;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import dev.caduceus.spi.tool.ToolContext.ApprovalRequest;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Durable runs against a real journal, on SQLite and on PostgreSQL: dense sequence numbers, resume from
 * any cursor, many subscribers, slow subscribers falling back to the database, recovery after a crash,
 * idempotency (also two nodes racing with one key), stop, approvals, steering, listing and retention.
 */
@ParameterizedClass
@EnumSource(Dialect.class)
class DurableRunsTest {
    @Parameter
    Dialect dialect;
    @TempDir
    Path dir;
    private TestStore store;
    private Database db;
    private RunJournal journal;
    private RunService runs;

    /** A runtime whose behaviour each test writes as a function. */
    private record TestRuntime(BiFunction<RunRequest, RunContext, RunResult> body) implements AgentRuntime {
        @Override
        public String id() {
            return "test";
        }

        @Override
        public RunResult execute(RunRequest request, RunContext ctx) {
            return body.apply(request, ctx);
        }
    }

    @BeforeEach
    void open() {
        store = TestStore.create(dialect, dir);
        db = store.open();
        journal = new RunJournal(db, Harness.JSON);
    }

    @AfterEach
    void close() {
        if (journal != null) journal.close();
        if (db != null) db.close();
    }

    private RunService service(BiFunction<RunRequest, RunContext, RunResult> body, int cap, Duration approvalTimeout) {
        runs = new RunService(new TestRuntime(body), new InMemoryEventLog(),
                new RunService.Durability(journal, approvalTimeout, Duration.ofHours(24)), null, cap, true, Clock.systemUTC());
        return runs;
    }

    private RunService service(BiFunction<RunRequest, RunContext, RunResult> body) {
        return service(body, 0, Duration.ofMinutes(5));
    }

    private static RunRequest request(String text) {
        return Harness.request(text);
    }

    private static RunResult answer(String text) {
        return RunResult.completed(text, new Usage(3, 4, 7), List.of());
    }

    private static List<JournalEntry> drain(RunHandle run, long after) throws InterruptedException {
        var out = new ArrayList<JournalEntry>();
        try (var sub = run.subscribe(after)) {
            while (!sub.finished()) sub.next(Duration.ofSeconds(5)).ifPresent(out::add);
        }
        return out;
    }

    private static void assertDense(List<JournalEntry> entries, long from) {
        assertEquals(LongStream.rangeClosed(from, from + entries.size() - 1).boxed().toList(),
                entries.stream().map(JournalEntry::seq).toList());
    }

    @Test
    void eventsAreJournaledDenselyAndTheRecordFollows() throws Exception {
        service((req, ctx) -> {
            ctx.emit(new RunEvent.Started("m"));
            ctx.emit(new RunEvent.ReasoningDelta("think "));
            ctx.emit(new RunEvent.ReasoningDelta("hard"));
            ctx.emit(new RunEvent.ToolCallStarted("c1", "terminal", Harness.JSON.createObjectNode().put("command", "ls"),
                    "ls", null));
            ctx.emit(new RunEvent.ToolCallFinished("c1", "terminal", 12, false, "a big result", "a big…"));
            ctx.emit(new RunEvent.UsageReported(new Usage(1, 1, 2), new Usage(1, 1, 2)));
            ctx.emit(new RunEvent.TextDelta("Do"));
            ctx.emit(new RunEvent.TextDelta("ne."));
            return answer("Done.");
        });
        var start = runs.start(request("go"), RunOptions.journaled());
        assertEquals(RunStatus.QUEUED, start.status());
        assertFalse(start.replayed());
        var run = start.handle();
        run.await();
        var events = drain(run, 0);
        assertDense(events, 1);
        assertEquals(List.of("reasoning_delta", "tool_call_started", "tool_call_finished", "text_delta", "text_delta",
                "completed"), events.stream().map(e -> dev.caduceus.platform.runtime.journal.EventTypes.name(e.event())).toList());
        assertEquals("think hard", ((RunEvent.ReasoningDelta) events.get(0).event()).text());
        assertNull(((RunEvent.ToolCallStarted) events.get(1).event()).arguments(), "arguments are not journaled");
        assertEquals("ls", ((RunEvent.ToolCallStarted) events.get(1).event()).argumentsPreview());
        var finished = (RunEvent.ToolCallFinished) events.get(2).event();
        assertNull(finished.result(), "results are not journaled");
        assertEquals("a big…", finished.outputPreview(), "their previews are");

        var record = runs.record(run.id()).orElseThrow();
        assertEquals(RunStatus.COMPLETED, record.status());
        assertEquals(6, record.lastSeq());
        assertEquals("completed", record.lastEvent());
        assertEquals("Done.", record.output());
        assertEquals(new Usage(3, 4, 7), record.usage());
        assertEquals(run.id(), record.sessionId(), "no session: the run id");
        assertTrue(!record.updatedAt().isBefore(record.createdAt()));

        // a finished run is served from the database, from any cursor
        var stored = runs.find(run.id()).orElseThrow();
        assertInstanceOf(StoredRun.class, stored);
        assertEquals(events, drain(stored, 0)); // the output preview too, read back from the database
        assertEquals(events.subList(3, 6), drain(stored, 3));
        assertEquals(List.of(), drain(stored, 6), "at the end: closes at once");
    }

    @Test
    void toolCompletionsJournaledBeforeThereWereOutputPreviewsStillRead() throws Exception {
        service((req, ctx) -> {
            ctx.emit(new RunEvent.ToolCallFinished("c1", "terminal", 12, false, "r", "r"));
            return answer("Done.");
        });
        var run = runs.start(request("go"), RunOptions.journaled()).handle();
        run.await();
        journal.flush();
        var old = "{\"type\":\"tool_call_finished\",\"callId\":\"c1\",\"tool\":\"terminal\",\"durationMillis\":12,"
                + "\"error\":false,\"result\":null}"; // a row as the journal wrote it before
        var stored = db.read(sql -> sql.queryOne("SELECT event_json FROM run_events WHERE run_id = ? AND seq = 1",
                r -> r.getString(1), run.id())).orElseThrow();
        assertTrue(stored.contains("\"outputPreview\":\"r\""), stored);
        assertEquals(1, (int) db.write(sql -> sql.update("UPDATE run_events SET event_json = ? WHERE run_id = ? AND seq = 1",
                old, run.id())));
        var events = drain(runs.find(run.id()).orElseThrow(), 0);
        assertEquals(new RunEvent.ToolCallFinished("c1", "terminal", 12, false, null), events.get(0).event());
        assertNull(((RunEvent.ToolCallFinished) events.get(0).event()).outputPreview());
    }

    @Test
    void fiftySubscribersOfALiveRunEachSeeEveryEvent() throws Exception {
        var go = new CountDownLatch(1);
        service((req, ctx) -> {
            try {
                go.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            for (int i = 0; i < 200; i++) ctx.emit(new RunEvent.TextDelta("t" + i));
            return answer("ok");
        });
        var run = runs.start(request("go"), RunOptions.journaled()).handle();
        var results = new ArrayList<CompletableFuture<List<JournalEntry>>>();
        for (int i = 0; i < 50; i++) {
            var f = new CompletableFuture<List<JournalEntry>>();
            Thread.ofVirtual().start(() -> {
                try {
                    f.complete(drain(run, 0));
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
            results.add(f);
        }
        go.countDown();
        for (var f : results) {
            var events = f.get(20, TimeUnit.SECONDS);
            assertEquals(201, events.size());
            assertDense(events, 1);
            assertInstanceOf(RunEvent.Completed.class, events.getLast().event());
        }
    }

    @Test
    void aSlowSubscriberFallsBehindTheLiveTailAndCatchesUpFromTheDatabase() throws Exception {
        int count = RunJournal.TAIL_CAPACITY * 3;
        var emitted = new CountDownLatch(1);
        var release = new CountDownLatch(1);
        service((req, ctx) -> {
            for (int i = 0; i < count; i++) ctx.emit(new RunEvent.TextDelta("t" + i));
            emitted.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return answer("ok");
        });
        var run = runs.start(request("go"), RunOptions.journaled()).handle();
        try (var sub = run.subscribe(0)) {
            var first = sub.next(Duration.ofSeconds(5)).orElseThrow(); // then it stalls while the run races ahead
            assertEquals(1, first.seq());
            assertTrue(emitted.await(10, TimeUnit.SECONDS));
            journal.flush();
            var seen = new ArrayList<JournalEntry>(List.of(first));
            while (seen.size() < count) seen.add(sub.next(Duration.ofSeconds(5)).orElseThrow());
            release.countDown();
            while (!sub.finished()) sub.next(Duration.ofSeconds(5)).ifPresent(seen::add);
            assertEquals(count + 1, seen.size());
            assertDense(seen, 1);
            assertEquals("t" + (count - 1), ((RunEvent.TextDelta) seen.get(count - 1).event()).text());
        }
    }

    @Test
    void runsLiveWhenTheProcessDiedReadInterruptedAfterRecovery() throws Exception {
        var entered = new CountDownLatch(1);
        service((req, ctx) -> {
            ctx.emit(new RunEvent.TextDelta("partial"));
            entered.countDown();
            var stopped = new CountDownLatch(1);
            ctx.cancellation().onCancel(stopped::countDown);
            try {
                stopped.await(); // never finishes before the "crash"
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return answer("never");
        });
        var run = runs.start(request("go"), RunOptions.journaled()).handle();
        assertTrue(entered.await(5, TimeUnit.SECONDS));
        journal.flush();
        // crash: a new process opens the same database; this one never writes again
        try (var db2 = store.open()) {
            var journal2 = new RunJournal(db2, Harness.JSON);
            var after = new RunService(new TestRuntime((r, c) -> answer("x")), new InMemoryEventLog(),
                    new RunService.Durability(journal2, Duration.ofMinutes(5), Duration.ofHours(24)), null, 0, true,
                    Clock.systemUTC());
            assertEquals(1, after.recover());
            var record = after.record(run.id()).orElseThrow();
            assertEquals(RunStatus.INTERRUPTED, record.status());
            assertEquals("The server restarted before this run settled.", record.error());
            assertEquals(2, record.lastSeq());
            var events = drain(after.find(run.id()).orElseThrow(), 0);
            assertDense(events, 1);
            assertEquals("partial", ((RunEvent.TextDelta) events.get(0).event()).text());
            assertInstanceOf(RunEvent.Interrupted.class, events.get(1).event());
            assertEquals(0, after.recover(), "recovery is idempotent");
            journal2.close();
        }
        run.cancel("test over");
        run.await();
    }

    @Test
    void idempotencyKeysReplayTheOriginalRunAndRefuseOtherPayloads() throws Exception {
        var hold = new CountDownLatch(1);
        service((req, ctx) -> {
            try {
                hold.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return answer("ok");
        }, 1, Duration.ofMinutes(5));
        var first = runs.start(request("go"), RunOptions.journaled("k1", "fp-a"));
        var again = runs.start(request("go"), RunOptions.journaled("k1", "fp-a")); // at the cap: still a replay
        assertTrue(again.replayed());
        assertEquals(first.handle().id(), again.handle().id());
        var conflict = assertThrows(RunRejectedException.class,
                () -> runs.start(request("other"), RunOptions.journaled("k1", "fp-b")));
        assertEquals(RunRejectedException.Reason.IDEMPOTENCY_CONFLICT, conflict.reason());
        assertEquals(409, conflict.toApiError().status());
        var full = assertThrows(RunRejectedException.class, () -> runs.start(request("new"), RunOptions.journaled("k2", "fp")));
        assertEquals(RunRejectedException.Reason.AT_CAPACITY, full.reason());
        hold.countDown();
        first.handle().await();
        var afterEnd = runs.start(request("go"), RunOptions.journaled("k1", "fp-a"));
        assertTrue(afterEnd.replayed());
        assertEquals(RunStatus.COMPLETED, afterEnd.status());
        assertEquals("ok", afterEnd.handle().await().output());
    }

    @Test
    void twoNodesStartingRunsWithOneIdempotencyKeyAtOnceMakeOneRun() throws Exception {
        try (var otherDb = store.open()) {
            var other = new RunJournal(otherDb, Harness.JSON);           // a second node on the same database
            var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                for (int round = 0; round < 10; round++) {
                    var key = "race-" + round;
                    var now = Instant.now();
                    var barrier = new java.util.concurrent.CyclicBarrier(2);
                    var ids = List.of("run_a" + round, "run_b" + round);
                    var journals = List.of(journal, other);
                    var results = new ArrayList<java.util.concurrent.Future<java.util.Optional<RunJournal.RecordedKey>>>();
                    for (int i = 0; i < 2; i++) {
                        var id = ids.get(i);
                        var node = journals.get(i);
                        results.add(pool.submit(() -> {
                            barrier.await(10, TimeUnit.SECONDS);
                            return node.create(queued(id, now), key, "fp", now.minus(Duration.ofHours(1)));
                        }));
                    }
                    var first = results.get(0).get(20, TimeUnit.SECONDS);
                    var second = results.get(1).get(20, TimeUnit.SECONDS);
                    assertTrue(first.isEmpty() != second.isEmpty(), "exactly one inserted: " + first + " / " + second);
                    var winner = first.isEmpty() ? ids.get(0) : ids.get(1);
                    var existing = first.isEmpty() ? second.orElseThrow() : first.orElseThrow();
                    assertEquals(new RunJournal.RecordedKey("fp", winner), existing, "the loser gets the winner's key");
                    assertEquals(List.of(winner), db.read(sql -> sql.query("SELECT run_id FROM runs WHERE run_id IN (?, ?)",
                            r -> r.getString(1), ids.get(0), ids.get(1))), "one run row");
                    assertEquals(List.of(winner), db.read(sql -> sql.query(
                            "SELECT run_id FROM run_idempotency_keys WHERE idempotency_key = ?", r -> r.getString(1), key)));
                }
            } finally {
                pool.shutdownNow();
                other.close();
            }
        }
    }

    private static dev.caduceus.spi.agent.RunRecord queued(String runId, Instant at) {
        return new dev.caduceus.spi.agent.RunRecord(runId, RunStatus.QUEUED, at, at, null, "m", null, 0, null, null, null,
                null, null, null, "admin");
    }

    @Test
    void stopIsStoppingThenCancelledAndOnlyLiveRunsCanBeStopped() throws Exception {
        var entered = new CountDownLatch(1);
        var exit = new CountDownLatch(1);
        service((req, ctx) -> {
            entered.countDown();
            var stopped = new CountDownLatch(1);
            ctx.cancellation().onCancel(stopped::countDown);
            try {
                stopped.await();
                exit.await(); // the worker takes a moment to exit: until the test has seen it stopping
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return RunResult.of(StopReason.INTERRUPTED, "half", Usage.ZERO, null, null, List.of());
        });
        var run = runs.start(request("go"), RunOptions.journaled()).handle();
        assertTrue(entered.await(5, TimeUnit.SECONDS));
        assertTrue(runs.stop(run.id()));
        assertEquals(RunStatus.STOPPING, runs.record(run.id()).orElseThrow().status());
        assertEquals("stopping", runs.record(run.id()).orElseThrow().lastEvent());
        assertTrue(runs.stop(run.id()), "stop twice: still live, still stopping");
        exit.countDown();
        run.await();
        var record = runs.record(run.id()).orElseThrow();
        assertEquals(RunStatus.CANCELLED, record.status());
        assertInstanceOf(RunEvent.Cancelled.class, drain(run, 0).getLast().event());
        assertFalse(runs.stop(run.id()), "a finished run is not live");
        assertFalse(runs.stop("run_unknown"));
    }

    @Test
    void approvalsWaitAreAnsweredTimeOutAndResolveAsDenyOnStop() throws Exception {
        var choices = new ArrayList<ApprovalChoice>();
        var asked = new CountDownLatch(1);
        service((req, ctx) -> {
            try {
                asked.countDown();
                choices.add(ctx.requestApproval(new ApprovalRequest("rm -rf build", "recursive delete", "rm-recursive")));
                choices.add(ctx.requestApproval(new ApprovalRequest("mkfs /dev/x", "disk format", "disk-write", false)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return answer("ok");
        }, 0, Duration.ofMillis(700));
        var run = runs.start(request("go"), RunOptions.journaled()).handle();
        assertTrue(asked.await(5, TimeUnit.SECONDS));
        var waiting = awaitStatus(run.id(), RunStatus.WAITING_FOR_APPROVAL);
        assertEquals("rm -rf build", waiting.approval().command());
        assertEquals("rm-recursive", waiting.approval().patternKey());
        assertInstanceOf(ApprovalAnswer.Outcome.UnknownRequest.class,
                runs.approve(run.id(), new ApprovalAnswer(ApprovalChoice.ONCE, "nope", false)));
        var requestId = waiting.approval().approvalId();
        assertEquals(new ApprovalAnswer.Outcome.Resolved(1),
                runs.approve(run.id(), new ApprovalAnswer(ApprovalChoice.ONCE, requestId, false)));
        run.await(); // the second request times out after 700 ms
        assertEquals(List.of(ApprovalChoice.ONCE, ApprovalChoice.TIMED_OUT), choices);
        var events = drain(run, 0).stream().map(JournalEntry::event).toList();
        assertEquals(5, events.size());
        var second = (RunEvent.ApprovalRequested) events.get(2);
        assertFalse(second.allowPermanent());
        var timedOut = (RunEvent.ApprovalResolved) events.get(3);
        assertTrue(timedOut.timedOut());
        assertEquals("deny", timedOut.choice());
        assertInstanceOf(ApprovalAnswer.Outcome.NotActive.class,
                runs.approve(run.id(), new ApprovalAnswer(ApprovalChoice.ONCE, null, false)));
        assertInstanceOf(ApprovalAnswer.Outcome.RunNotFound.class,
                runs.approve("run_nope", new ApprovalAnswer(ApprovalChoice.ONCE, null, false)));
    }

    @Test
    void stopResolvesAPendingApprovalAsDeny() throws Exception {
        var choice = new AtomicReference<ApprovalChoice>();
        service((req, ctx) -> {
            try {
                choice.set(ctx.requestApproval(new ApprovalRequest("rm -rf x", "recursive delete", "rm-recursive")));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return RunResult.of(StopReason.INTERRUPTED, null, Usage.ZERO, null, null, List.of());
        });
        var run = runs.start(request("go"), RunOptions.journaled()).handle();
        awaitStatus(run.id(), RunStatus.WAITING_FOR_APPROVAL);
        assertTrue(runs.stop(run.id()));
        run.await();
        assertEquals(ApprovalChoice.DENY, choice.get());
        var events = drain(run, 0).stream().map(JournalEntry::event).toList();
        var resolved = (RunEvent.ApprovalResolved) events.get(1);
        assertEquals("stop", resolved.by());
        assertEquals(RunStatus.CANCELLED, runs.record(run.id()).orElseThrow().status());
    }

    @Test
    void steeringIsJournaledWhenAcceptedAndReportedPendingAfterTheFinalAnswer() throws Exception {
        var running = new CountDownLatch(1);
        var steered = new CountDownLatch(1);
        var applied = new ArrayList<String>();
        service((req, ctx) -> {
            running.countDown();
            try {
                steered.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            applied.addAll(ctx.drainSteering());
            return answer("final");
        });
        var run = runs.start(request("go"), RunOptions.journaled()).handle();
        assertTrue(running.await(5, TimeUnit.SECONDS));
        awaitStatus(run.id(), RunStatus.RUNNING);
        assertInstanceOf(ApprovalAnswer.Outcome.NotPending.class,
                runs.approve(run.id(), new ApprovalAnswer(ApprovalChoice.ONCE, null, false)));
        assertEquals(SteerOutcome.ACCEPTED, runs.steer(run.id(), "focus on tests"));
        assertEquals(SteerOutcome.NOT_ACCEPTED, runs.steer(run.id(), " "));
        steered.countDown();
        run.await();
        assertEquals(List.of("focus on tests"), applied);
        assertEquals(SteerOutcome.NOT_RUNNING, runs.steer(run.id(), "late"));
        assertEquals(SteerOutcome.RUN_NOT_FOUND, runs.steer("run_nope", "x"));
        assertEquals("steered", dev.caduceus.platform.runtime.journal.EventTypes.name(drain(run, 0).getFirst().event()));

        // a steer that arrives after the final answer is reported, not lost
        var answered = new CountDownLatch(1);
        var finish = new CountDownLatch(1);
        service((req, ctx) -> {
            answered.countDown();
            try {
                finish.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return answer("done");
        });
        var late = runs.start(request("go"), RunOptions.journaled()).handle();
        assertTrue(answered.await(5, TimeUnit.SECONDS));
        awaitStatus(late.id(), RunStatus.RUNNING);
        assertEquals(SteerOutcome.ACCEPTED, runs.steer(late.id(), "one more thing"));
        finish.countDown();
        late.await();
        assertEquals("one more thing", runs.record(late.id()).orElseThrow().pendingSteer());
        assertEquals("one more thing", ((RunEvent.Completed) drain(late, 0).getLast().event()).pendingSteer());
    }

    @Test
    void aCompletedRunWithoutAnswerTextFails() throws Exception {
        service((req, ctx) -> RunResult.of(StopReason.ITERATION_LIMIT, null, Usage.ZERO, null, "Reached the iteration limit (3)",
                List.of()));
        var run = runs.start(request("go"), RunOptions.journaled()).handle();
        run.await();
        var record = runs.record(run.id()).orElseThrow();
        assertEquals(RunStatus.FAILED, record.status());
        assertEquals("Reached the iteration limit (3)", record.error());
    }

    @Test
    void listingFiltersAndPagesNewestFirst() throws Exception {
        var millis = new java.util.concurrent.atomic.AtomicLong(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
        var ticking = new Clock() { // a millisecond per reading: every run has its own created_at
            @Override public ZoneOffset getZone() { return ZoneOffset.UTC; }
            @Override public Clock withZone(java.time.ZoneId zone) { return this; }
            @Override public Instant instant() { return Instant.ofEpochMilli(millis.incrementAndGet()); }
        };
        runs = new RunService(new TestRuntime((r, c) -> answer("ok")), new InMemoryEventLog(),
                new RunService.Durability(journal, Duration.ofMinutes(5), Duration.ofHours(24)), null, 0, true, ticking);
        var ids = new ArrayList<String>();
        for (int i = 0; i < 5; i++) {
            var req = new RunRequest(null, List.of(dev.caduceus.spi.message.Message.user("x")), null, List.of(),
                    i % 2 == 0 ? "even" : "odd", null, Harness.request("x").options(), 0,
                    Map.of());
            if (i == 4) req = req.from("job:abcdefabcdef");
            var run = runs.start(req, RunOptions.journaled()).handle();
            run.await();
            ids.add(run.id());
        }
        var page1 = runs.list(new RunQuery(Set.of(), null, null, 2, null, null));
        assertEquals(List.of(ids.get(4), ids.get(3)), page1.runs().stream().map(r -> r.runId()).toList());
        assertTrue(page1.hasMore());
        var last = page1.runs().getLast();
        var page2 = runs.list(new RunQuery(Set.of(), null, null, 2, last.createdAt(), last.runId()));
        assertEquals(List.of(ids.get(2), ids.get(1)), page2.runs().stream().map(r -> r.runId()).toList());
        var even = runs.list(new RunQuery(Set.of(RunStatus.COMPLETED), "even", null, 100, null, null));
        assertEquals(List.of(ids.get(4), ids.get(2), ids.get(0)), even.runs().stream().map(r -> r.runId()).toList());
        assertFalse(even.hasMore());
        assertEquals(List.of(ids.get(4)), runs.list(new RunQuery(Set.of(), null, "job:abcdefabcdef", 10, null, null))
                .runs().stream().map(r -> r.runId()).toList());
        assertEquals(0, runs.list(new RunQuery(Set.of(RunStatus.RUNNING), null, null, 10, null, null)).runs().size());
    }

    @Test
    void retentionDeletesOldTerminalRunsWithTheirEventsAndKeys() throws Exception {
        var clock = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
        var shifting = new Clock() {
            @Override public ZoneOffset getZone() { return ZoneOffset.UTC; }
            @Override public Clock withZone(java.time.ZoneId zone) { return this; }
            @Override public Instant instant() { return clock.get(); }
        };
        runs = new RunService(new TestRuntime((r, c) -> answer("ok")), new InMemoryEventLog(),
                new RunService.Durability(journal, Duration.ofMinutes(5), Duration.ofHours(24)), null, 0, true, shifting);
        var old = runs.start(request("old"), RunOptions.journaled("key-old", "fp")).handle();
        old.await();
        clock.set(Instant.parse("2026-01-07T12:00:00Z"));
        var young = runs.start(request("young"), RunOptions.journaled()).handle();
        young.await();
        clock.set(Instant.parse("2026-01-08T06:00:00Z"));
        assertEquals(1, runs.prune(Duration.ofDays(7)));
        assertTrue(runs.record(old.id()).isEmpty());
        assertTrue(runs.find(old.id()).isEmpty());
        assertNotNull(runs.record(young.id()).orElse(null));
        var fresh = runs.start(request("old"), RunOptions.journaled("key-old", "other-fp"));
        assertFalse(fresh.replayed(), "the key went with its run");
        fresh.handle().await();
        assertNotEquals(old.id(), fresh.handle().id());
    }

    private dev.caduceus.spi.agent.RunRecord awaitStatus(String runId, RunStatus status) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            var r = runs.record(runId).orElseThrow();
            if (r.status() == status) return r;
            Thread.sleep(10);
        }
        throw new AssertionError("run " + runId + " never reached " + status + ": " + runs.record(runId));
    }
}
