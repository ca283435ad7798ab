package dev.caduceus.plugin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.TestDatabase;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three real hosts on one PostgreSQL database ({@link JobsHost#node}: each its own pool, store,
 * scheduler and run service), with the same due jobs coming due on all of them at once: the claim (a
 * compare-and-set in a serializable write) lets exactly one of them start each firing, as a real run.
 */
@Timeout(120)
class JobsClusterTest {
    static final int JOBS = 100;
    static final int NODES = 3;

    @Test
    void eachDueJobIsFiredByExactlyOneNode() throws Exception {
        var pg = TestPostgres.shared().newDatabase();
        var nodes = new ArrayList<JobsHost>();
        try {
            nodes.add(JobsHost.start(b -> b.env("CADUCEUS__DATABASE__URL", pg.url())));
            for (int n = 1; n < NODES; n++) nodes.add(nodes.getFirst().node(b -> b.env("CADUCEUS__DATABASE__URL", pg.url())));
            var due = JobsHost.T0.plus(Duration.ofMinutes(1));
            try (var db = TestDatabase.attach(pg, "endpoint-jobs")) {
                var setup = new JobStore(db, new ObjectMapper());
                for (int i = 0; i < JOBS; i++) setup.insert(StoredJobs.once(String.format("%012x", i), "admin", due));
                for (var node : nodes) node.clock.set(due.plusMillis(500)); // due on every node at once
                Eventually.await(JobsHost.DEADLINE, "every job fired", () -> count(db), rows -> rows.equals(JOBS + "/" + JOBS));
                for (var node : nodes) node.pass(); // every scheduler has looked again: nothing left to fire
                assertEquals(JOBS + "/" + JOBS, count(db), "one history row per job");
            }
            var first = nodes.getFirst();
            var notOnce = new HashMap<String, Integer>(); // job id → runs started, where that is not 1
            for (int i = 0; i < JOBS; i++) {
                var id = String.format("%012x", i);
                int runs = first.runsOf(id).size();
                if (runs != 1) notOnce.put(id, runs);
                assertTrue(first.job(id).path("next_run_at").isNull(), first.job(id).toString());
            }
            assertEquals(Map.of(), notOnce, "every job started exactly once, on some node");
        } finally {
            var reversed = new ArrayList<>(nodes);
            java.util.Collections.reverse(reversed); // the first owns the upstream
            reversed.forEach(JobsHost::close);
        }
    }

    /** {@code rows/distinct jobs} of the firing history. */
    private static String count(TestDatabase db) {
        return db.read(sql -> sql.queryOne("SELECT COUNT(*), COUNT(DISTINCT job_id) FROM job_runs",
                r -> r.getLong(1) + "/" + r.getLong(2))).orElseThrow();
    }
}
