package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.runtime.cluster.Cluster;
import dev.caduceus.platform.runtime.journal.InMemoryEventLog;
import dev.caduceus.platform.runtime.journal.RunJournal;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.platform.host.store.PlatformMigrations;
import dev.caduceus.platform.host.store.PostgresDatabase;
import dev.caduceus.platform.host.store.PostgresTarget;
import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.SteerOutcome;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import dev.caduceus.spi.tool.ToolContext.ApprovalRequest;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two nodes in one JVM on one real PostgreSQL database, each with its own connections, listener, journal,
 * run service and lease, as two processes would have: a run on A is followed, resumed and controlled
 * through B, and a dead node's runs are ended by the survivor.
 */
class TwoNodesTest {
    private TestPostgres.Db pg;
    private final List<AutoCloseable> open = new ArrayList<>();
    private Node a;
    private Node b;
    private volatile BiFunction<RunRequest, RunContext, RunResult> body = (r, c) -> RunResult.completed("ok", Usage.ZERO, List.of());

    private record Node(Database db, Cluster cluster, RunJournal journal, RunService runs) {}

    @BeforeEach
    void nodes() throws Exception {
        pg = TestPostgres.shared().newDatabase();
        a = node();
        b = node();
    }

    @AfterEach
    void close() throws Exception {
        for (var c : open.reversed()) c.close();
    }

    private Node node() throws Exception {
        var db = Database.connect(PostgresTarget.parse(pg.url(), Optional.empty(), Optional.empty()), 4);
        open.add(db);
        Migrations.apply(db, Migrations.PLATFORM, PlatformMigrations.scripts(db.dialect()));
        var cluster = Cluster.join((PostgresDatabase) db, Clock.systemUTC());
        var journal = new RunJournal(db, Harness.JSON, new dev.caduceus.platform.host.metrics.MetricsRegistry().host(),
                cluster.nodeId(), cluster.feed());
        open.add(journal);
        AgentRuntime runtime = new AgentRuntime() {
            @Override
            public String id() {
                return "test";
            }

            @Override
            public RunResult execute(RunRequest request, RunContext ctx) {
                return body.apply(request, ctx);
            }
        };
        var runs = new RunService(runtime, new InMemoryEventLog(),
                new RunService.Durability(journal, Duration.ofMinutes(1), Duration.ofHours(24)), null, 0, true, Clock.systemUTC());
        cluster.start(runs, journal, Harness.JSON);
        open.add(cluster);
        return new Node(db, cluster, journal, runs);
    }

    /** Up to {@code count} entries of {@code runId} after {@code after}, read through {@code node}. */
    private static List<JournalEntry> take(Node node, String runId, long after, int count) throws InterruptedException {
        var out = new ArrayList<JournalEntry>();
        var handle = node.runs().find(runId).orElseThrow();
        try (var sub = handle.subscribe(after)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (out.size() < count && !sub.finished() && System.nanoTime() < deadline)
                sub.next(Duration.ofSeconds(1)).ifPresent(out::add);
        }
        return out;
    }

    private RunStatus awaitStatus(Node node, String runId, RunStatus status) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        RunStatus now = null;
        while (System.nanoTime() < deadline) {
            now = node.runs().record(runId).map(r -> r.status()).orElse(null);
            if (now == status) return now;
            TimeUnit.MILLISECONDS.sleep(20); // polling the shared table, bounded by the deadline
        }
        throw new AssertionError("run " + runId + " is " + now + ", not " + status);
    }

    @Test
    void aRunOnAIsFollowedThroughBWithoutGapsAndResumedFromItsCursor() throws Exception {
        var step = new Semaphore(0);
        body = (req, ctx) -> {
            for (int i = 0; i < 6; i++) {
                step.acquireUninterruptibly();
                ctx.emit(new RunEvent.TextDelta("t" + i));
            }
            return RunResult.completed("t0t1t2t3t4t5", Usage.ZERO, List.of());
        };
        var run = a.runs().start(Harness.request("go"), RunOptions.journaled()).handle();
        step.release(3);
        var first = take(b, run.id(), 0, 3);   // B follows live: it is woken by A's commits
        assertEquals(List.of(1L, 2L, 3L), first.stream().map(JournalEntry::seq).toList());
        step.release(3);                        // B is disconnected while A goes on
        var rest = take(b, run.id(), 3, 100);  // and resumes from its Last-Event-ID
        assertEquals(LongStream.rangeClosed(4, 3 + rest.size()).boxed().toList(), rest.stream().map(JournalEntry::seq).toList());
        assertTrue(rest.getLast().event().isTerminal(), rest.getLast().event().toString());
        assertEquals(RunStatus.COMPLETED, b.runs().record(run.id()).orElseThrow().status());
    }

    @Test
    void approvalSteerAndStopSentToBReachTheRunOnAWithTheSameAnswers() throws Exception {
        var steered = new CountDownLatch(1);
        var choices = new ArrayList<ApprovalChoice>();
        body = (req, ctx) -> {
            try {
                choices.add(ctx.requestApproval(new ApprovalRequest("rm -rf build", "recursive delete", "rm-recursive")));
                ctx.emit(new RunEvent.TextDelta("working"));
                while (ctx.drainSteering().isEmpty() && !ctx.cancellation().isCancelled()) TimeUnit.MILLISECONDS.sleep(10);
                steered.countDown();
                while (!ctx.cancellation().isCancelled()) TimeUnit.MILLISECONDS.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return RunResult.of(dev.caduceus.spi.agent.StopReason.INTERRUPTED, null, Usage.ZERO, null, null, List.of());
        };
        var run = a.runs().start(Harness.request("go"), RunOptions.journaled()).handle();
        awaitStatus(b, run.id(), RunStatus.WAITING_FOR_APPROVAL);
        var approvalId = b.runs().record(run.id()).orElseThrow().approval().approvalId();
        assertInstanceOf(ApprovalAnswer.Outcome.UnknownRequest.class,
                b.runs().approve(run.id(), new ApprovalAnswer(ApprovalChoice.ONCE, "nope", false)));
        assertEquals(new ApprovalAnswer.Outcome.Resolved(1),
                b.runs().approve(run.id(), new ApprovalAnswer(ApprovalChoice.ONCE, approvalId, false)));
        awaitStatus(b, run.id(), RunStatus.RUNNING);
        assertEquals(SteerOutcome.ACCEPTED, b.runs().steer(run.id(), "focus on tests"));
        assertTrue(steered.await(10, TimeUnit.SECONDS));
        assertTrue(b.runs().stop(run.id()));
        run.await();
        assertEquals(List.of(ApprovalChoice.ONCE), choices);
        assertEquals(RunStatus.CANCELLED, awaitStatus(b, run.id(), RunStatus.CANCELLED));
        // once it is over, B answers as a single node would
        assertInstanceOf(ApprovalAnswer.Outcome.NotActive.class,
                b.runs().approve(run.id(), new ApprovalAnswer(ApprovalChoice.ONCE, null, false)));
        assertEquals(SteerOutcome.NOT_RUNNING, b.runs().steer(run.id(), "late"));
        assertEquals(false, b.runs().stop(run.id()));
    }

    @Test
    void theLiveRunsOfANodeWhoseLeaseExpiredAreInterruptedBySurvivors() throws Exception {
        long now = System.currentTimeMillis();
        a.db().write(sql -> {
            sql.update("INSERT INTO cluster_nodes (node_id, host, pid, started_at, renewed_at) VALUES ('node_dead', 'h', 1, ?, ?)",
                    now - 120_000, now - 60_000);
            sql.update("INSERT INTO runs (run_id, status, created_at, updated_at, last_seq, owner, node_id) "
                    + "VALUES ('run_orphan', 'running', ?, ?, 1, 'admin', 'node_dead')", now - 60_000, now - 60_000);
            sql.update("INSERT INTO run_events (run_id, seq, created_at, event_json) VALUES ('run_orphan', 1, ?, ?)",
                    now - 60_000, "{\"type\":\"text_delta\",\"text\":\"x\"}");
            return null;
        });
        assertEquals(RunStatus.INTERRUPTED, awaitStatus(b, "run_orphan", RunStatus.INTERRUPTED));
        var events = take(a, "run_orphan", 0, 10);
        assertEquals(List.of(1L, 2L), events.stream().map(JournalEntry::seq).toList());
        assertInstanceOf(RunEvent.Interrupted.class, events.get(1).event());
        assertEquals(0L, (long) a.db().read(sql -> sql.queryOne("SELECT COUNT(*) FROM cluster_nodes WHERE node_id = 'node_dead'",
                r -> r.getLong(1)).orElseThrow()));
        assertEquals(2L, (long) a.db().read(sql -> sql.queryOne("SELECT COUNT(*) FROM cluster_nodes", r -> r.getLong(1)).orElseThrow()));
    }
}
