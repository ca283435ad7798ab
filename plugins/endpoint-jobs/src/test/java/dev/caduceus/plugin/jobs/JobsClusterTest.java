package dev.caduceus.plugin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunStart;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.SteerOutcome;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.platform.testkit.FakePlatformContext;
import dev.caduceus.platform.testkit.ManualClock;
import dev.caduceus.platform.testkit.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes on one PostgreSQL database, each with its own pool, store and scheduler, firing the same
 * due jobs at the same moment: the claim (a compare-and-set in a serializable write) lets exactly one of
 * them start each firing. The run service is a counting stand-in: what is under test is which node
 * starts what, not the runs.
 */
@Timeout(120)
class JobsClusterTest {
    static final Instant T0 = Instant.parse("2026-01-15T09:00:00Z");
    static final int JOBS = 100;
    static final int NODES = 3;

    @TempDir Path dir;

    @Test
    void eachDueJobIsFiredByExactlyOneNode() throws Exception {
        try (var first = TestDatabase.open(dir, "endpoint-jobs", Dialect.POSTGRESQL)) {
            var nodes = new ArrayList<TestDatabase>(List.of(first));
            try {
                for (int i = 1; i < NODES; i++) nodes.add(first.node());
                var setup = new JobStore(first, new ObjectMapper());
                for (int i = 0; i < JOBS; i++) setup.insert(StoredJobs.once(String.format("%012x", i), "admin", T0));
                var clock = new ManualClock(T0.plusMillis(500));
                var starts = new ConcurrentHashMap<String, AtomicInteger>(); // job id → runs started for it
                var startsByNode = new int[NODES];
                var schedulers = new ArrayList<JobScheduler>();
                for (int n = 0; n < NODES; n++) {
                    int node = n;
                    var runs = new CountingRuns("n" + n, jobId -> {
                        starts.computeIfAbsent(jobId, k -> new AtomicInteger()).incrementAndGet();
                        synchronized (startsByNode) { startsByNode[node]++; }
                    });
                    var ctx = FakePlatformContext.builder("endpoint-jobs").database(nodes.get(n)).build();
                    schedulers.add(new JobScheduler(new JobStore(nodes.get(n), new ObjectMapper()), () -> runs, clock,
                            new JobsSettings(ZoneOffset.UTC, Duration.ofSeconds(1), JobsSettings.START_TIMEOUT), "model",
                            JobMetrics.on(ctx.metrics())));
                }
                var go = new CountDownLatch(1);
                var failures = new ConcurrentLinkedQueue<Throwable>();
                var threads = new ArrayList<Thread>();
                for (var scheduler : schedulers) {
                    threads.add(Thread.ofPlatform().start(() -> {
                        try {
                            go.await();
                            scheduler.fireDue();
                            scheduler.fireDue(); // a second pass finds nothing left to fire
                        } catch (Throwable t) {
                            failures.add(t);
                        }
                    }));
                }
                go.countDown();
                for (var t : threads) t.join();
                assertEquals(List.of(), List.copyOf(failures));
                var notOnce = new HashMap<String, Integer>(); // job id → runs started, where that is not 1
                for (int i = 0; i < JOBS; i++) {
                    var id = String.format("%012x", i);
                    int count = starts.getOrDefault(id, new AtomicInteger()).get();
                    if (count != 1) notOnce.put(id, count);
                }
                assertEquals(Map.of(), notOnce, "every job started exactly once, on some node");
                int total = 0;
                for (int n : startsByNode) total += n;
                assertEquals(JOBS, total);
                var rows = first.read(sql -> sql.queryOne("SELECT COUNT(*), COUNT(DISTINCT job_id) FROM job_runs",
                        r -> r.getLong(1) + "/" + r.getLong(2))).orElseThrow();
                assertEquals(JOBS + "/" + JOBS, rows, "one history row per job");
                for (var job : setup.list(true, null)) {
                    assertEquals(Job.RUNNING, job.state(), job.toString());
                    assertEquals(null, job.nextRunAt(), job.toString());
                }
                schedulers.forEach(JobScheduler::close);
            } finally {
                for (var node : nodes.subList(1, nodes.size())) node.close();
            }
        }
    }

    /** Starts nothing: counts the start of each job's run and hands back a handle that never ends. */
    private static final class CountingRuns implements Runs {
        private final String node;
        private final Consumer<String> started;
        private final AtomicInteger ids = new AtomicInteger();

        CountingRuns(String node, Consumer<String> started) {
            this.node = node;
            this.started = started;
        }

        @Override public void checkAdmission() {}

        @Override public void checkReady() {}

        @Override
        public RunStart start(RunRequest request, RunOptions options) {
            started.accept(request.origin().substring("job:".length()));
            var id = "run_" + node + "_" + ids.incrementAndGet();
            return new RunStart(new RunHandle() {
                @Override public String id() { return id; }
                @Override public RunSubscription subscribe(long afterSeq) { throw new UnsupportedOperationException(); }
                @Override public RunResult await() { throw new UnsupportedOperationException(); } // nobody settles here
                @Override public void cancel(String reason) {}
            }, RunStatus.QUEUED, false);
        }

        @Override
        public RunResult call(RunRequest request, java.util.function.Consumer<RunHandle> started) {
            throw new UnsupportedOperationException();
        }

        @Override public Optional<RunHandle> find(String runId) { return Optional.empty(); }
        @Override public Optional<RunRecord> record(String runId) { return Optional.empty(); }
        @Override public RunQuery.Page list(RunQuery query) { return new RunQuery.Page(List.of(), false); }
        @Override public boolean stop(String runId) { return false; }
        @Override public ApprovalAnswer.Outcome approve(String runId, ApprovalAnswer answer) {
            return new ApprovalAnswer.Outcome.RunNotFound();
        }
        @Override public SteerOutcome steer(String runId, String text) { return SteerOutcome.RUN_NOT_FOUND; }
    }
}
