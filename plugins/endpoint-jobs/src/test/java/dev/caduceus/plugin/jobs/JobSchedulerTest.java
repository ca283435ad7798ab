package dev.caduceus.plugin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Firing, settling, the misfire rule, capacity, run-now, delete, restarts and two servers racing, on
 * the real host: each firing is a durable run of the host's run service answered by the scripted
 * model, and time moves only when the test advances the platform's {@link dev.caduceus.platform.testkit.ManualClock}.
 */
class JobSchedulerTest {
    @TempDir Path home;
    JobsHost f;

    @AfterEach
    void close() {
        if (f != null) f.close();
    }

    JobsHost host() {
        return f = JobsHost.start();
    }

    static String at(String iso) {
        return iso.replace("Z", "+00:00");
    }

    @Test
    void aOneShotFiresOnceAsAJournaledRunAndItsOutputLandsInTheHistory() throws Exception {
        host();
        var id = f.createId("{\"name\":\"soon\",\"schedule\":\"2026-01-15T09:00:05Z\",\"prompt\":\"say hi\"}");
        f.pass();
        assertEquals(List.of(), f.runsOf(id), "not due yet");
        var held = new HeldTurn(Turn.text("hi!").usage(5, 7));
        f.upstream.enqueue(held);
        f.clock.advance(Duration.ofSeconds(5));
        held.awaitArrival();
        var runId = f.awaitRuns(id, 1).getFirst().path("run_id").asText();
        var running = f.job(id);
        assertEquals("running", running.path("state").asText());
        assertTrue(running.path("next_run_at").isNull());
        var run = f.run(runId); // a durable run of the host's, carrying its job id
        assertEquals(id, run.path("job_id").asText(), run.toString());
        assertEquals("cron_" + id + "_20260115_090005", run.path("session_id").asText());
        var asked = f.upstream.chatRequests().getLast().body().path("messages");
        assertEquals("say hi", asked.get(asked.size() - 1).path("content").asText());

        f.clock.advance(Duration.ofSeconds(3));
        held.release();
        var done = f.awaitSettled(id, "ok");
        assertEquals("completed", done.path("state").asText());
        assertFalse(done.path("enabled").asBoolean());
        assertEquals(runId, done.path("last_run_id").asText());
        assertEquals(1, done.path("repeat").path("completed").asInt());
        assertEquals("2026-01-15T09:00:05+00:00", done.path("last_run_at").asText());
        f.clock.advance(Duration.ofHours(1));
        f.pass();
        assertEquals(1, f.runsOf(id).size(), "exactly once");

        var history = f.history(id);
        var listed = history.path("runs").get(0);
        assertEquals(runId, listed.path("run_id").asText());
        assertEquals("completed", listed.path("status").asText());
        assertEquals("schedule", listed.path("trigger").asText());
        assertEquals("2026-01-15T09:00:05+00:00", listed.path("scheduled_for").asText());
        assertEquals("hi!", listed.path("output").asText());
        assertEquals(1768467605.000, listed.path("created_at").asDouble(), 0.0005);
        assertEquals("{\"input_tokens\":5,\"output_tokens\":7,\"total_tokens\":12}", listed.path("usage").toString());
        assertFalse(history.path("has_more").asBoolean());

        var metrics = f.admin.get("/metrics").body(); // the plugin's numbers, under its id
        assertTrue(metrics.contains("caduceus_endpoint_jobs_fired_total{trigger=\"schedule\"} 1.0"), metrics);
        assertTrue(metrics.contains("caduceus_endpoint_jobs_lateness_seconds_count 1"), metrics);
        assertTrue(metrics.contains("caduceus_runs_started_total{source=\"job\"} 1.0"), metrics);
    }

    @Test
    void aFailingRunSetsErrorAndLaterFiringsContinue() throws Exception {
        host();
        var id = f.createId("{\"name\":\"often\",\"schedule\":\"every 1m\"}");
        f.upstream.enqueue(Turn.error(400, "upstream exploded"));
        f.clock.advance(Duration.ofMinutes(1));
        var first = f.awaitRuns(id, 1).getFirst().path("run_id").asText();
        var failed = f.awaitSettled(id, "error");
        assertEquals(f.awaitRun(first, "failed").path("error").asText(), failed.path("last_error").asText());
        assertTrue(failed.path("last_error").asText().contains("upstream exploded"), failed.toString());
        assertEquals("scheduled", failed.path("state").asText());
        assertTrue(failed.path("enabled").asBoolean());
        assertEquals("2026-01-15T09:02:00+00:00", failed.path("next_run_at").asText());

        f.clock.advance(Duration.ofMinutes(1));
        f.awaitRuns(id, 2);
        var ok = f.awaitSettled(id, "ok");
        assertTrue(ok.path("last_error").isNull());
        assertEquals(2, ok.path("repeat").path("completed").asInt());
    }

    @Test
    void repeatCountsEndTheJobAsCompleted() throws Exception {
        host();
        var id = f.createId("{\"name\":\"twice\",\"schedule\":\"every 1m\",\"repeat\":2}");
        for (int i = 1; i <= 2; i++) {
            int n = i;
            f.clock.advance(Duration.ofMinutes(1));
            f.awaitJob(id, "completed " + n, j -> j.path("repeat").path("completed").asInt() == n);
        }
        var job = f.job(id);
        assertEquals("completed", job.path("state").asText());
        assertFalse(job.path("enabled").asBoolean());
        assertTrue(job.path("next_run_at").isNull());
        f.clock.advance(Duration.ofMinutes(5));
        f.pass();
        assertEquals(2, f.runsOf(id).size());
    }

    @Test
    void downAcrossTwoScheduledTimesSkipsToTheNextFutureTime() throws Exception {
        f = JobsHost.start(b -> b.home(home));
        var id = f.createId("{\"name\":\"hourly\",\"schedule\":\"every 1h\"}"); // due 10:00, then 11:00
        f.host.close();
        // the server is down from 09:00 to 11:10; the next process opens the same state
        try (var next = f.next(Instant.parse("2026-01-15T11:10:00Z"))) {
            next.pass();
            assertEquals(List.of(), next.runsOf(id), "70 min late is more than half the period: skipped");
            var job = next.job(id);
            assertEquals("2026-01-15T12:00:00+00:00", job.path("next_run_at").asText(), "stays on its grid");
            assertEquals("scheduled", job.path("state").asText());
        }
    }

    @Test
    void aRecurringJobLateByLessThanHalfItsPeriodFiresOnce() throws Exception {
        host();
        var id = f.createId("{\"name\":\"hourly\",\"schedule\":\"every 1h\"}");
        f.clock.set(Instant.parse("2026-01-15T10:20:00Z"));
        f.awaitRuns(id, 1);
        f.pass();
        assertEquals(1, f.runsOf(id).size());
        assertEquals("2026-01-15T11:00:00+00:00", f.job(id).path("next_run_at").asText());
    }

    @Test
    void aOneShotMoreThan120SecondsLateIsMissed() throws Exception {
        host();
        var late = f.createId("{\"name\":\"late\",\"schedule\":\"2026-01-15T09:10:00Z\"}");
        var justInTime = f.createId("{\"name\":\"ok\",\"schedule\":\"2026-01-15T09:18:30Z\"}");
        f.clock.set(Instant.parse("2026-01-15T09:20:00Z"));
        f.awaitRuns(justInTime, 1);
        f.pass();
        var missed = f.job(late);
        assertEquals("completed", missed.path("state").asText());
        assertFalse(missed.path("enabled").asBoolean());
        assertEquals("error", missed.path("last_status").asText());
        assertEquals("Missed scheduled time", missed.path("last_error").asText());
        assertEquals(List.of(), f.runsOf(late));
        assertEquals(1, f.runsOf(justInTime).size());
    }

    @Test
    void aFiringDueWhileThePreviousRunIsLiveIsSkipped() throws Exception {
        host();
        var id = f.createId("{\"name\":\"slow\",\"schedule\":\"every 1m\"}");
        var held = new HeldTurn(Turn.text("slow"));
        f.upstream.enqueue(held);
        f.clock.advance(Duration.ofMinutes(1));
        held.awaitArrival();
        f.clock.advance(Duration.ofMinutes(1));
        f.pass();
        assertEquals(1, f.runsOf(id).size());
        var job = f.job(id);
        assertEquals("2026-01-15T09:03:00+00:00", job.path("next_run_at").asText());
        assertEquals("running", job.path("state").asText());
        held.release();
        f.awaitSettled(id, "ok");
    }

    @Test
    void atCapacityTheFiringWaitsForAFreeSlot() throws Exception {
        f = JobsHost.start(b -> b.env("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "1"));
        var id = f.createId("{\"name\":\"n\",\"schedule\":\"every 10m\"}");
        var held = new HeldTurn(Turn.text("busy"));
        f.upstream.enqueue(held);
        var busy = f.admin.post("/v1/runs", "{\"input\":\"hold the only slot\"}");
        assertEquals(202, busy.status(), busy.body());
        held.awaitArrival();
        f.clock.advance(Duration.ofMinutes(10));
        f.pass();
        assertEquals(List.of(), f.runsOf(id));
        var waiting = f.job(id);
        assertEquals("2026-01-15T09:10:00+00:00", waiting.path("next_run_at").asText(), "still due");
        assertEquals("scheduled", waiting.path("state").asText());
        assertTrue(waiting.path("last_status").isNull());
        held.release();
        f.awaitRun(busy.json().path("run_id").asText(), "completed");
        f.clock.advance(Duration.ofSeconds(1));
        f.awaitRuns(id, 1);
        f.awaitSettled(id, "ok");
    }

    @Test
    void withoutAModelTheFiringFailsWithTheHostsMessage() throws Exception {
        f = JobsHost.withoutModel();
        var id = f.createId("{\"name\":\"n\",\"schedule\":\"every 10m\"}");
        f.clock.advance(Duration.ofMinutes(10));
        var job = f.awaitSettled(id, "error");
        assertTrue(job.path("last_error").asText().startsWith("No model provider is configured."), job.toString());
        assertEquals("scheduled", job.path("state").asText());
        assertEquals("2026-01-15T09:20:00+00:00", job.path("next_run_at").asText());
    }

    @Test
    void runNowFiresOnTheNextTickAsManualAndThenKeepsTheSchedule() throws Exception {
        host();
        var id = f.createId("{\"name\":\"n\",\"schedule\":\"every 1h\"}");
        f.clock.advance(Duration.ofMinutes(7));
        f.upstream.enqueue(Turn.text("manual output"));
        assertEquals(200, f.call("POST", "/api/jobs/" + id + "/run", null).status());
        f.awaitRuns(id, 1);
        var settled = f.awaitSettled(id, "ok");
        assertEquals("2026-01-15T10:07:00+00:00", settled.path("next_run_at").asText());
        var run = f.history(id).path("runs").get(0);
        assertEquals("manual", run.path("trigger").asText());
        assertEquals("manual output", run.path("output").asText());
    }

    @Test
    void pausedJobsDoNotFireAndResumeSchedulesFromNow() throws Exception {
        host();
        var id = f.createId("{\"name\":\"n\",\"schedule\":\"every 1m\"}");
        f.call("POST", "/api/jobs/" + id + "/pause", null);
        f.clock.advance(Duration.ofMinutes(5));
        f.pass();
        assertEquals(List.of(), f.runsOf(id));
        f.call("POST", "/api/jobs/" + id + "/resume", null);
        f.pass();
        assertEquals(List.of(), f.runsOf(id));
        f.clock.advance(Duration.ofMinutes(1));
        f.awaitRuns(id, 1);
    }

    @Test
    void deletingAJobStopsItsLiveRun() throws Exception {
        host();
        var id = f.createId("{\"name\":\"n\",\"schedule\":\"every 1m\"}");
        var held = new HeldTurn(Turn.text("never seen"));
        f.upstream.enqueue(held);
        f.clock.advance(Duration.ofMinutes(1));
        held.awaitArrival();
        var runId = f.awaitRuns(id, 1).getFirst().path("run_id").asText();
        assertEquals(200, f.call("DELETE", "/api/jobs/" + id, null).status());
        f.awaitRun(runId, "cancelled");
        held.release();
        f.pass(); // nothing left to settle, no error
        assertEquals(404, f.call("GET", "/api/jobs/" + id, null).status());
    }

    @Test
    void afterARestartTheJobsLiveRunIsResumedAndSettlesTheJob() throws Exception {
        f = JobsHost.start(b -> b.home(home));
        var id = f.createId("{\"name\":\"n\",\"schedule\":\"every 1m\"}");
        var held = new HeldTurn(Turn.text("never settles here"));
        f.upstream.enqueue(held);
        f.clock.advance(Duration.ofMinutes(1));
        held.awaitArrival();
        f.awaitRuns(id, 1);
        // the process is "killed" with the run live: the next one on the same state resumes it at boot, and the
        // job settles from the resumed run's end; it does not fire again
        f.upstream.enqueue(Turn.text("done after the restart"));
        try (var next = f.next(Instant.parse("2026-01-15T09:01:30Z"))) {
            var job = next.awaitSettled(id, "ok");
            assertEquals("scheduled", job.path("state").asText());
            assertEquals("2026-01-15T09:02:00+00:00", job.path("next_run_at").asText());
            var runs = next.runsOf(id);
            assertEquals(1, runs.size(), runs.toString());
            assertEquals("done after the restart", runs.get(0).path("output").asText());
            held.release();
        }
    }

    @Test
    void aZonedCronJobAcrossBothDstChanges() throws Exception {
        host();
        f.clock.set(Instant.parse("2026-03-28T12:00:00Z"));
        var id = f.createId("{\"name\":\"night\",\"schedule\":\"30 2 * * *\",\"tz\":\"Europe/Berlin\"}");
        assertEquals("2026-03-30T00:30:00+00:00", f.job(id).path("next_run_at").asText(), "29 March has no 02:30");
        f.call("POST", "/api/jobs/" + id + "/pause", null);
        f.clock.set(Instant.parse("2026-10-24T12:00:00Z"));
        var resumed = f.call("POST", "/api/jobs/" + id + "/resume", null).json().path("job");
        assertEquals("2026-10-25T00:30:00+00:00", resumed.path("next_run_at").asText(), "the first 02:30 (CEST)");
        f.clock.set(Instant.parse("2026-10-25T00:30:00Z"));
        f.awaitRuns(id, 1);
        f.awaitSettled(id, "ok");
        f.clock.set(Instant.parse("2026-10-25T01:30:00Z")); // the second 02:30 (CET)
        f.pass();
        assertEquals(1, f.runsOf(id).size(), "the overlap fires once");
        assertEquals("2026-10-26T01:30:00+00:00", f.job(id).path("next_run_at").asText());
    }

    @Test
    void twoServersOnOneDatabaseFireEachDueJobExactlyOnce() throws Exception {
        host();
        var ids = new HashSet<String>();
        for (int i = 0; i < 40; i++) ids.add(f.createId("{\"name\":\"j" + i + "\",\"schedule\":\"every 1m\"}"));
        try (var other = f.next(JobsHost.T0)) { // a second process: its own scheduler and writer on the same file
            other.clock.advance(Duration.ofMinutes(1));
            f.clock.advance(Duration.ofMinutes(1));
            Eventually.await(JobsHost.DEADLINE, "every job fired", () -> firedPerJob(), fired -> fired.keySet().equals(ids));
            f.pass();
            other.pass();
            var fired = firedPerJob();
            assertEquals(ids, fired.keySet());
            fired.forEach((job, count) -> assertEquals(1, count, "runs of job " + job));
        }
    }

    private Map<String, Integer> firedPerJob() {
        var page = f.admin.get("/v1/runs?limit=100");
        assertEquals(200, page.status(), page.body());
        var counts = new HashMap<String, Integer>();
        for (JsonNode run : page.json().path("data")) {
            if (!run.path("job_id").isTextual()) continue;
            counts.merge(run.path("job_id").asText(), 1, Integer::sum);
        }
        return counts;
    }
}
