package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.runtime.journal.InMemoryEventLog;
import dev.caduceus.platform.runtime.journal.RunJournal;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolSpec;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Durable runs whose process dies and a new process (a restart, or another node) on the same database resumes
 * them, on SQLite and PostgreSQL: the real agent loop, journal and run service on both sides; the "crash" stops
 * the first process's journal, so it never writes again, as after {@code kill -9}. A tool call in flight is not
 * run again unless its tool is repeatable, an approval pending is asked again, a model call in flight is made
 * again, a finished step is not repeated; the events go on in one dense sequence; the resume bound and window hold;
 * a run being stopped ends cancelled; the {@code Runs.Resumer} of a run's origin kind is told what became of it.
 */
@ParameterizedClass
@EnumSource(Dialect.class)
class ResumedRunsTest {
    static final RunJournal.ResumePolicy ON = new RunJournal.ResumePolicy(true, 3, Duration.ofHours(24));

    @Parameter
    Dialect dialect;
    @TempDir
    Path dir;
    private TestStore store;
    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<RunHandle> leftRunning = new ArrayList<>();

    /** One process: its database connection, journal and run service. */
    private record Process(Database db, RunJournal journal, RunService runs) {
        /** kill -9: nothing this process does from now on reaches the database. */
        void crash() {
            journal.close();
        }
    }

    @BeforeEach
    void open() {
        store = TestStore.create(dialect, dir);
    }

    @AfterEach
    void close() throws Exception {
        leftRunning.forEach(r -> r.cancel("test over"));
        for (var c : open.reversed()) c.close();
    }

    private Process process(ScriptedModel model, RunJournal.ResumePolicy policy, Tool... tools) {
        return process(model, policy, 0, tools);
    }

    private Process process(ScriptedModel model, RunJournal.ResumePolicy policy, int maxConcurrentRuns, Tool... tools) {
        return process(model, policy, maxConcurrentRuns, List.of(), tools);
    }

    private Process process(ScriptedModel model, RunJournal.ResumePolicy policy, int maxConcurrentRuns,
                            List<dev.caduceus.spi.agent.Runs.Resumer> resumers, Tool... tools) {
        var db = store.open();
        var journal = new RunJournal(db, Harness.JSON);
        open.add(db);
        open.add(journal);
        var runtime = new LocalAgentRuntime(model, new ToolSelection(Tools.catalog(tools), ToolSelection.DEFAULT),
                new ToolDispatcher(Map.of(), Harness.JSON, Redactor.none(), dir), SystemPrompt.builtIn(),
                new AgentSettings("test-model", 90, 8, true, Harness.FAST), Redactor.none(), Clock.systemUTC());
        var runs = new RunService(runtime, new InMemoryEventLog(), new RunService.Durability(journal,
                Duration.ofMinutes(5), Duration.ofHours(24), null, policy, resumers), null, maxConcurrentRuns, true,
                Clock.systemUTC());
        return new Process(db, journal, runs);
    }

    private Process process(ScriptedModel model, Tool... tools) {
        return process(model, ON, tools);
    }

    private RunHandle start(Process p, String input) throws Exception {
        var run = p.runs().start(Harness.request(input), RunOptions.journaled()).handle();
        leftRunning.add(run);
        return run;
    }

    /** A tool that counts its calls, tells {@code entered}, then blocks until interrupted. */
    private static Tool blocking(String name, AtomicInteger calls, CountDownLatch entered) {
        return Tools.tool(name, (call, ctx) -> {
            calls.incrementAndGet();
            entered.countDown();
            new CountDownLatch(1).await(); // a long command: the process dies first
            return new ToolResult.Ok("never");
        });
    }

    /** A tool that asks for approval before it runs ({@code rm}), telling {@code asked}, counting runs in {@code executed}. */
    private static Tool guarded(CountDownLatch asked, AtomicInteger executed) {
        return Tools.tool("rm", (c, ctx) -> {
            asked.countDown();
            var choice = ctx.approval(new ToolContext.ApprovalRequest("rm -rf build", "recursive delete", "rm-recursive"));
            if (choice == ApprovalChoice.DENY || choice == ApprovalChoice.TIMED_OUT) return new ToolResult.Error("denied", false);
            executed.incrementAndGet();
            return new ToolResult.Ok("removed");
        });
    }

    private static List<JournalEntry> drain(RunHandle run) throws InterruptedException {
        var out = new ArrayList<JournalEntry>();
        try (var sub = run.subscribe(0)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!sub.finished()) {
                if (System.nanoTime() > deadline) throw new AssertionError("the run did not end: " + out);
                sub.next(Duration.ofSeconds(5)).ifPresent(out::add);
            }
        }
        return out;
    }

    private static void assertDense(List<JournalEntry> entries) {
        assertEquals(LongStream.rangeClosed(1, entries.size()).boxed().toList(),
                entries.stream().map(JournalEntry::seq).toList(), "one gap-free sequence across the resumption");
    }

    private static <T extends RunEvent> List<T> of(List<JournalEntry> entries, Class<T> type) {
        return entries.stream().map(JournalEntry::event).filter(type::isInstance).map(type::cast).toList();
    }

    /** The tool message for {@code callId} in a model request. */
    private static String toolResult(ModelRequest request, String callId) {
        return request.messages().stream().filter(m -> callId.equals(m.toolCallId())).map(Message::text).findFirst()
                .orElseThrow(() -> new AssertionError("no result for " + callId + " in " + request.messages()));
    }

    @Test
    void aCallInFlightIsReportedInterruptedAndNeverRunTwiceWhileARepeatableOneRunsAgain() throws Exception {
        var sleeps = new AtomicInteger();
        var reads = new AtomicInteger();
        var entered = new CountDownLatch(2);
        var first = new ScriptedModel().toolCalls(ScriptedModel.call("call_sleep", "sleep", "seconds", 20),
                ScriptedModel.call("call_read", "read", "path", "notes.txt"));
        var a = process(first, Tools.tool("sleep", true, 100_000, (c, ctx) -> {
            sleeps.incrementAndGet();
            entered.countDown();
            new CountDownLatch(1).await();
            return new ToolResult.Ok("slept");
        }), Tools.repeatable("read", (c, ctx) -> {
            reads.incrementAndGet();
            entered.countDown();
            new CountDownLatch(1).await();
            return new ToolResult.Ok("never");
        }));
        var run = start(a, "work");
        assertTrue(entered.await(10, TimeUnit.SECONDS));
        a.crash();

        var second = new ScriptedModel().answer("done after the restart");
        var b = process(second, Tools.tool("sleep", true, 100_000, (c, ctx) -> {
            sleeps.incrementAndGet();
            return new ToolResult.Ok("slept again");
        }), Tools.repeatable("read", (c, ctx) -> {
            reads.incrementAndGet();
            return new ToolResult.Ok("the notes");
        }));
        assertEquals(1, b.runs().recover());
        var resumed = b.runs().find(run.id()).orElseThrow();
        var entries = drain(resumed);
        assertDense(entries);

        assertEquals(1, sleeps.get(), "a call whose effects are unknown is never run twice");
        assertEquals(2, reads.get(), "a repeatable call in flight runs once more");
        var request = second.requests.getFirst();
        assertEquals(LocalAgentRuntime.INTERRUPTED_CALL, toolResult(request, "call_sleep"));
        assertTrue(toolResult(request, "call_read").startsWith("the notes"), toolResult(request, "call_read"));
        assertTrue(toolResult(request, "call_read").contains("the run was resumed"), "the model is told once");

        var resumedEvent = of(entries, RunEvent.Resumed.class);
        assertEquals(1, resumedEvent.size());
        assertEquals(b.journal().nodeId(), resumedEvent.getFirst().node());
        assertEquals(1, resumedEvent.getFirst().step(), "one model call was done");
        assertEquals(1, resumedEvent.getFirst().resumes());
        var interrupted = of(entries, RunEvent.ToolCallFinished.class).stream()
                .filter(f -> f.callId().equals("call_sleep")).toList();
        assertEquals(1, interrupted.size());
        assertTrue(interrupted.getFirst().error());
        assertEquals("done after the restart", assertInstanceOf(RunEvent.Completed.class, entries.getLast().event()).output());

        var record = b.runs().record(run.id()).orElseThrow();
        assertEquals(RunStatus.COMPLETED, record.status());
        assertNotNull(record.resumed());
        assertEquals(1, record.resumed().count());
        assertEquals(b.journal().nodeId(), record.resumed().node());
    }

    @Test
    void aModelCallInFlightIsMadeAgainAndAFinishedStepIsNotRepeated() throws Exception {
        var runsOfTool = new AtomicInteger();
        var hanging = new CountDownLatch(1);
        var first = new ScriptedModel().toolCalls(ScriptedModel.call("call_ls", "ls", "path", "."))
                .hang(hanging); // the second call: the process dies while the model is writing
        Tool ls = Tools.tool("ls", (c, ctx) -> {
            runsOfTool.incrementAndGet();
            return new ToolResult.Ok("a.txt b.txt");
        });
        var a = process(first, ls);
        var run = start(a, "list");
        assertTrue(hanging.await(10, TimeUnit.SECONDS));
        a.crash();

        var second = new ScriptedModel().answer("two files");
        var b = process(second, ls);
        assertEquals(1, b.runs().recover());
        var entries = drain(b.runs().find(run.id()).orElseThrow());
        assertDense(entries);
        assertEquals(1, runsOfTool.get(), "the finished step is not run again");
        var request = second.requests.getFirst();
        assertTrue(toolResult(request, "call_ls").startsWith("a.txt b.txt"));
        assertEquals("list", request.messages().get(1).text(), "the request's input comes first");
        assertEquals(1, of(entries, RunEvent.Resumed.class).getFirst().step());
        var texts = of(entries, RunEvent.TextDelta.class).stream().map(RunEvent.TextDelta::text).toList();
        assertEquals(List.of("partial", "two files"), texts, "the text before the crash stays; the answer follows");
        assertEquals("two files", assertInstanceOf(RunEvent.Completed.class, entries.getLast().event()).output());
    }

    @Test
    void aFinishedStepIsCommittedBeforeTheNextModelCall() throws Exception {
        // While another connection holds the table the steps go to, the tool's result cannot be committed: the run must
        // wait for it rather than call the model, or a node dying during that call loses a step that had finished.
        var locked = new CountDownLatch(1);
        var release = new CountDownLatch(1);
        var second = new CountDownLatch(1);
        var checked = new CountDownLatch(1);
        var holder = store.open();
        open.add(holder);
        var holding = Thread.ofVirtual().unstarted(() -> holder.write(sql -> {
            if (dialect == Dialect.POSTGRESQL) sql.update("LOCK TABLE run_steps IN SHARE ROW EXCLUSIVE MODE");
            locked.countDown(); // SQLite: this write transaction alone holds the database's write lock
            release.await(10, TimeUnit.SECONDS);
            return null;
        }));
        Tool ls = Tools.tool("ls", (c, ctx) -> {
            holding.start();
            assertTrue(locked.await(10, TimeUnit.SECONDS));
            return new ToolResult.Ok("a.txt b.txt");
        });
        var model = new ScriptedModel().toolCalls(ScriptedModel.call("call_ls", "ls", "path", "."))
                .then((request, sink, cancel) -> {
                    second.countDown();
                    try { // answers once the test has read the saved steps (a completed run's are deleted)
                        assertTrue(checked.await(10, TimeUnit.SECONDS));
                    } catch (InterruptedException e) {
                        throw new dev.caduceus.spi.model.ModelException("interrupted", false, 0, e);
                    }
                    ScriptedModel.events(new dev.caduceus.spi.model.ModelEvent.TextDelta("two files"), ScriptedModel.usage(),
                            new dev.caduceus.spi.model.ModelEvent.Finish(dev.caduceus.spi.model.FinishReason.STOP))
                            .play(request, sink, cancel);
                });
        var a = process(model, ls);
        var run = start(a, "list");
        assertTrue(locked.await(10, TimeUnit.SECONDS));
        // bounded wait for something that must not happen while the lock is held
        assertTrue(!second.await(300, TimeUnit.MILLISECONDS), "the model was called before the step was committed");
        release.countDown();
        assertTrue(second.await(10, TimeUnit.SECONDS), "the model is called once the step is committed");
        List<String> saved = a.db().read(sql -> sql.query("SELECT message_json FROM run_steps WHERE run_id = ?",
                row -> row.getString(1), run.id()));
        assertTrue(saved.stream().anyMatch(m -> m.contains("a.txt b.txt")), "the tool's result is saved: " + saved);
        checked.countDown();
        assertEquals("two files", run.await().output());
    }

    @Test
    void aPendingApprovalIsAskedAgainAndTheCallRunsOnceApproved() throws Exception {
        var executed = new AtomicInteger();
        var asked = new CountDownLatch(1);
        var guarded = guarded(asked, executed);
        var first = new ScriptedModel().toolCalls(ScriptedModel.call("call_rm", "rm", "path", "build"));
        var a = process(first, guarded);
        var run = start(a, "clean");
        assertTrue(asked.await(10, TimeUnit.SECONDS));
        awaitStatus(a.runs(), run.id(), RunStatus.WAITING_FOR_APPROVAL);
        a.crash();

        var second = new ScriptedModel().answer("cleaned");
        var b = process(second, guarded);
        assertEquals(1, b.runs().recover());
        awaitStatus(b.runs(), run.id(), RunStatus.WAITING_FOR_APPROVAL);
        var outcome = b.runs().approve(run.id(), new ApprovalAnswer(ApprovalChoice.ONCE, null, false));
        assertInstanceOf(ApprovalAnswer.Outcome.Resolved.class, outcome);
        var entries = drain(b.runs().find(run.id()).orElseThrow());
        assertDense(entries);
        assertEquals(1, executed.get());
        assertEquals(2, of(entries, RunEvent.ApprovalRequested.class).size(), "asked before the crash and again after");
        assertTrue(toolResult(second.requests.getFirst(), "call_rm").startsWith("removed"));
        assertEquals(RunStatus.COMPLETED, b.runs().record(run.id()).orElseThrow().status());
    }

    @Test
    void aRunWaitingForTheCallersToolOutputsAsksForThemAgainAndItsRequestComesBackWhole() throws Exception {
        var weather = ToolSpec.builder("get_weather", "the caller's weather lookup").toolset(RunRequest.ClientTools.TOOLSET)
                .build();
        var request = Harness.request("weather?").withClientTools(new RunRequest.ClientTools(List.of(weather),
                new ModelRequest.ToolChoice.Named("get_weather"), false));
        var first = new ScriptedModel().toolCalls(ScriptedModel.call("call_up", "get_weather", "city", "Oslo"));
        var a = process(first);
        var run = a.runs().start(request, RunOptions.journaled()).handle();
        leftRunning.add(run);
        awaitStatus(a.runs(), run.id(), RunStatus.REQUIRES_ACTION);
        var asked = a.runs().record(run.id()).orElseThrow().toolCalls();
        assertEquals(1, asked.size());
        a.crash();

        var second = new ScriptedModel().answer("sunny in Oslo");
        var b = process(second);
        assertEquals(1, b.runs().recover());
        awaitStatus(b.runs(), run.id(), RunStatus.REQUIRES_ACTION);
        assertEquals(asked, b.runs().record(run.id()).orElseThrow().toolCalls(), "the same calls, announced again");
        assertInstanceOf(dev.caduceus.spi.agent.Runs.ToolOutputs.Accepted.class,
                b.runs().submitToolOutputs(run.id(), Map.of(asked.getFirst().id(), "sunny, 21 C")));
        var entries = drain(b.runs().find(run.id()).orElseThrow());
        assertDense(entries);
        assertEquals(2, of(entries, RunEvent.ToolCallsRequired.class).size());
        var upstream = second.requests.getFirst();
        assertTrue(toolResult(upstream, asked.getFirst().id()).startsWith("sunny, 21 C"));
        assertEquals(List.of("get_weather"), upstream.tools().stream().map(ToolSpec::name).toList(),
                "the caller's functions come back with the stored request");
        assertEquals(ModelRequest.ToolChoice.AUTO, upstream.toolChoice(), "a named choice holds for the first call only");
        assertEquals(Boolean.FALSE, upstream.parallelToolCalls());
        assertEquals("sunny in Oslo", assertInstanceOf(RunEvent.Completed.class, entries.getLast().event()).output());
    }

    @Test
    void resumedRunsWaitForASlotUnderTheServersCap() throws Exception {
        var hanging = new CountDownLatch(2);
        var a = process(new ScriptedModel().hang(hanging).hang(hanging));
        var one = start(a, "one");
        var two = start(a, "two");
        assertTrue(hanging.await(10, TimeUnit.SECONDS));
        a.crash();

        var entered = new CountDownLatch(1);
        var release = new CountDownLatch(1);
        var second = new ScriptedModel().then((request, sink, cancel) -> {
            entered.countDown();
            try {
                assertTrue(release.await(10, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ScriptedModel.events(new dev.caduceus.spi.model.ModelEvent.TextDelta("first"), ScriptedModel.usage(),
                    new dev.caduceus.spi.model.ModelEvent.Finish(dev.caduceus.spi.model.FinishReason.STOP))
                    .play(request, sink, cancel);
        }).answer("second");
        var b = process(second, ON, 1);
        assertEquals(2, b.runs().recover());
        assertTrue(entered.await(10, TimeUnit.SECONDS));
        assertEquals(1, b.runs().activeRuns(), "server.max_concurrent_runs 1 holds for resumed runs");
        var waiting = List.of(one.id(), two.id()).stream().map(id -> b.runs().record(id).orElseThrow().status()).toList();
        assertTrue(waiting.contains(RunStatus.QUEUED), "the other waits for the slot: " + waiting);
        assertEquals(1, second.requests.size());
        release.countDown();
        for (var id : List.of(one.id(), two.id())) {
            var entries = drain(b.runs().find(id).orElseThrow());
            assertDense(entries);
            assertInstanceOf(RunEvent.Completed.class, entries.getLast().event());
        }
        assertEquals(2, second.requests.size());
    }

    @Test
    void aRunStoppedByTheShutdownStaysLiveAndTheNextProcessResumesIt() throws Exception {
        var asked = new CountDownLatch(1);
        var executed = new AtomicInteger();
        var guarded = guarded(asked, executed);
        var a = process(new ScriptedModel().toolCalls(ScriptedModel.call("call_rm", "rm", "path", "build")), guarded);
        var run = start(a, "clean");
        assertTrue(asked.await(10, TimeUnit.SECONDS));
        a.runs().drain(Duration.ofMillis(50)); // a deploy: the drain times out and cancels what is live
        assertEquals(0, a.runs().activeRuns());
        a.crash();

        var second = new ScriptedModel().answer("cleaned");
        var b = process(second, guarded);
        assertEquals(1, b.runs().recover());
        awaitStatus(b.runs(), run.id(), RunStatus.WAITING_FOR_APPROVAL);
        b.runs().approve(run.id(), new ApprovalAnswer(ApprovalChoice.ONCE, null, false));
        var entries = drain(b.runs().find(run.id()).orElseThrow());
        assertDense(entries);
        assertEquals(1, executed.get());
        assertEquals(1, of(entries, RunEvent.Resumed.class).size());
        assertEquals(List.of(), of(entries, RunEvent.Interrupted.class), "no end before the resumption");
        assertEquals(1, of(entries, RunEvent.ApprovalResolved.class).size(), "the first request was never answered 'deny'");
        assertTrue(toolResult(second.requests.getFirst(), "call_rm").startsWith("removed"));
    }

    @Test
    void aRunThatCrashesMoreThanMaxResumesTimesEndsFailedAndAnOldOneInterrupted() throws Exception {
        var bound = new RunJournal.ResumePolicy(true, 1, Duration.ofHours(24));
        var hanging = new CountDownLatch(1);
        var a = process(new ScriptedModel().hang(hanging), bound);
        var run = start(a, "loop");
        assertTrue(hanging.await(10, TimeUnit.SECONDS));
        a.crash();

        var hangingAgain = new CountDownLatch(1);
        var b = process(new ScriptedModel().hang(hangingAgain), bound);
        assertEquals(1, b.runs().recover());
        leftRunning.add(b.runs().find(run.id()).orElseThrow());
        assertTrue(hangingAgain.await(10, TimeUnit.SECONDS));
        b.crash();

        var c = process(new ScriptedModel(), bound);
        assertEquals(1, c.runs().recover());
        var record = c.runs().record(run.id()).orElseThrow();
        assertEquals(RunStatus.FAILED, record.status());
        assertTrue(record.error().contains("runs.max_resumes: 1"), record.error());
        var entries = drain(c.runs().find(run.id()).orElseThrow());
        assertDense(entries);
        assertEquals("resume_limit", assertInstanceOf(RunEvent.Failed.class, entries.getLast().event()).code());

        // a run older than runs.resume_window ends interrupted, as when resuming is off
        var hangingOld = new CountDownLatch(1);
        var d = process(new ScriptedModel().hang(hangingOld), bound);
        var old = start(d, "old");
        assertTrue(hangingOld.await(10, TimeUnit.SECONDS));
        d.crash();
        var e = process(new ScriptedModel(), new RunJournal.ResumePolicy(true, 3, Duration.ZERO));
        assertEquals(1, e.runs().recover());
        assertEquals(RunStatus.INTERRUPTED, e.runs().record(old.id()).orElseThrow().status());
        assertNull(e.runs().record(old.id()).orElseThrow().resumed());
    }

    @Test
    void steeringAcceptedButNotYetAppliedWhenItsServerDiedIsAppliedAfterTheResume() throws Exception {
        var sleeps = new AtomicInteger();
        var entered = new CountDownLatch(1);
        var a = process(new ScriptedModel().toolCalls(ScriptedModel.call("call_sleep", "sleep", "seconds", 20)),
                blocking("sleep", sleeps, entered));
        var run = start(a, "work");
        assertTrue(entered.await(10, TimeUnit.SECONDS));
        assertEquals(dev.caduceus.spi.agent.SteerOutcome.ACCEPTED, a.runs().steer(run.id(), "also check the logs"));
        a.journal().flush();
        a.crash();

        var second = new ScriptedModel().answer("checked");
        var b = process(second, blocking("sleep", sleeps, new CountDownLatch(1)));
        assertEquals(1, b.runs().recover());
        var entries = drain(b.runs().find(run.id()).orElseThrow());
        assertDense(entries);
        var request = second.requests.getFirst();
        assertTrue(request.messages().stream().anyMatch(m -> m.role().equals("user") && "also check the logs".equals(m.text())),
                "the steering reaches the model after the resume: " + request.messages());
        assertEquals(1, of(entries, RunEvent.Steered.class).size(), "journaled once, when it was accepted");
        assertEquals(1, sleeps.get());
    }

    /** What a plugin following runs of origin kind {@code test} is told. */
    private static final class Told implements dev.caduceus.spi.agent.Runs.Resumer {
        final List<RunRecord> resumed = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<RunRecord> ended = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public String originKind() {
            return "test";
        }

        @Override
        public void resumed(RunHandle run, RunRecord record) {
            assertEquals(run.id(), record.runId());
            resumed.add(record);
        }

        @Override
        public void ended(RunRecord record) {
            ended.add(record);
        }
    }

    @Test
    void thePluginFollowingARunsOriginIsToldItGoesOnOrHowItEndedAndARunBeingStoppedEndsCancelled() throws Exception {
        var hanging = new CountDownLatch(3);
        var a = process(new ScriptedModel().hang(hanging).hang(hanging).hang(hanging), ON);
        var stopping = a.runs().start(Harness.request("stop me").withOrigin("test:stopped"), RunOptions.journaled()).handle();
        var going = a.runs().start(Harness.request("go on").withOrigin("test:going"), RunOptions.journaled()).handle();
        var other = a.runs().start(Harness.request("not followed").withOrigin("job:1"), RunOptions.journaled()).handle();
        leftRunning.addAll(List.of(stopping, going, other));
        assertTrue(hanging.await(10, TimeUnit.SECONDS));
        a.journal().flush();
        a.crash();
        try (var db = store.open()) { // a stop asked just before the kill: what the journal then holds
            db.write(sql -> sql.update("UPDATE runs SET status = 'stopping' WHERE run_id = ?", stopping.id()));
        }

        var told = new Told();
        var b = process(new ScriptedModel().answer("one").answer("two"), ON, 0, List.of(told));
        assertEquals(3, b.runs().recover(), () -> told.resumed + " / " + told.ended + " / "
                + b.runs().record(other.id()) + " / " + b.runs().record(stopping.id()));
        assertEquals(List.of("test:going"), told.resumed.stream().map(RunRecord::origin).toList(), "job:1 is not its kind");
        var resumedAt = told.resumed.getFirst().lastSeq();
        var entries = drain(b.runs().find(going.id()).orElseThrow());
        assertInstanceOf(RunEvent.Resumed.class, entries.get((int) resumedAt - 1).event(), "lastSeq is its run.resumed");
        assertEquals(List.of("test:stopped"), told.ended.stream().map(RunRecord::origin).toList());
        assertEquals(RunStatus.CANCELLED, told.ended.getFirst().status(), "a run being stopped ends cancelled");
        assertEquals(RunStatus.CANCELLED, b.runs().record(stopping.id()).orElseThrow().status());
        drain(b.runs().find(other.id()).orElseThrow());
    }

    private static void awaitStatus(RunService runs, String id, RunStatus status) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (runs.record(id).map(r -> r.status() != status).orElse(true)) {
            if (System.nanoTime() > deadline) throw new AssertionError(id + " never became " + status + ": " + runs.record(id));
            TimeUnit.MILLISECONDS.sleep(10); // polling the journal's record, bounded by the deadline
        }
    }
}
