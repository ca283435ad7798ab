package dev.caduceus.plugin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Firing, settling, the misfire rule, capacity, run-now, delete and the claim race. */
class JobSchedulerTest {
    @TempDir Path dir;
    JobsFixture f;

    @BeforeEach
    void open() {
        f = new JobsFixture(dir);
    }

    @AfterEach
    void close() {
        f.close();
    }

    String create(String body) throws Exception {
        return f.create(body).path("id").asText();
    }

    void complete(String runId, String output) {
        f.runs.append(runId, new RunEvent.Completed(output, StopReason.STOP, null, new Usage(5, 7, 12)));
    }

    @Test
    void aOneShotFiresOnceAsAJournaledRunAndItsOutputLandsInTheHistory() throws Exception {
        var id = create("{\"name\":\"soon\",\"schedule\":\"2026-01-15T09:00:05Z\",\"prompt\":\"say hi\"}");
        f.tick();
        assertEquals(0, f.runs.submissions().size(), "not due yet");
        f.clock.advance(Duration.ofSeconds(5));
        f.tick();
        f.tick();
        assertEquals(1, f.runs.submissions().size(), "exactly once");
        var s = f.runs.submissions().getFirst();
        assertTrue(s.options().durable());
        assertEquals(Map.of("job_id", id, "source", "job", "model", "hermes-agent"), s.request().metadata());
        assertEquals("cron_" + id + "_20260115_090005", s.request().sessionId());
        assertEquals("say hi", s.request().messages().getLast().text());
        var running = f.job(id);
        assertEquals(Job.RUNNING, running.state());
        assertNull(running.nextRunAt());

        f.clock.advance(Duration.ofSeconds(3));
        complete(s.runId(), "hi!");
        f.tick();
        var done = f.job(id);
        assertEquals(Job.COMPLETED, done.state());
        assertFalse(done.enabled());
        assertEquals("ok", done.lastStatus());
        assertEquals(s.runId(), done.lastRunId());
        assertEquals(1, done.repeatCompleted());
        assertEquals(Instant.parse("2026-01-15T09:00:05Z"), done.lastRunAt());
        f.clock.advance(Duration.ofHours(1));
        f.tick();
        assertEquals(1, f.runs.submissions().size());

        var history = f.call("GET", "/api/jobs/{job_id}/runs", id, null).responseBody();
        var run = history.path("runs").get(0);
        assertEquals(s.runId(), run.path("run_id").asText());
        assertEquals("completed", run.path("status").asText());
        assertEquals("schedule", run.path("trigger").asText());
        assertEquals("2026-01-15T09:00:05+00:00", run.path("scheduled_for").asText());
        assertEquals("hi!", run.path("output").asText());
        assertEquals(1768467605.000, run.path("created_at").asDouble(), 0.0005);
        assertEquals("{\"input_tokens\":5,\"output_tokens\":7,\"total_tokens\":12}", run.path("usage").toString());
        assertFalse(history.path("has_more").asBoolean());
        // the job's runs are the host's runs with this job id
        assertEquals(id, f.runs.queries().getLast().jobId());
    }

    @Test
    void aFailingRunSetsErrorAndLaterFiringsContinue() throws Exception {
        var id = create("{\"name\":\"often\",\"schedule\":\"every 1m\"}");
        f.clock.advance(Duration.ofMinutes(1));
        f.tick();
        var first = f.runs.submissions().getLast().runId();
        f.runs.append(first, new RunEvent.Failed("agent_error", "upstream exploded", StopReason.UPSTREAM_ERROR, null, Usage.ZERO));
        f.tick();
        var failed = f.job(id);
        assertEquals("error", failed.lastStatus());
        assertEquals("upstream exploded", failed.lastError());
        assertEquals(Job.SCHEDULED, failed.state());
        assertTrue(failed.enabled());
        assertEquals(Instant.parse("2026-01-15T09:02:00Z"), failed.nextRunAt());

        f.clock.advance(Duration.ofMinutes(1));
        f.tick();
        assertEquals(2, f.runs.submissions().size());
        complete(f.runs.submissions().getLast().runId(), "fine");
        f.tick();
        assertEquals("ok", f.job(id).lastStatus());
        assertNull(f.job(id).lastError());
        assertEquals(2, f.job(id).repeatCompleted());
    }

    @Test
    void repeatCountsEndTheJobAsCompleted() throws Exception {
        var id = create("{\"name\":\"twice\",\"schedule\":\"every 1m\",\"repeat\":2}");
        for (int i = 0; i < 2; i++) {
            f.clock.advance(Duration.ofMinutes(1));
            f.tick();
            complete(f.runs.submissions().getLast().runId(), "ok");
            f.tick();
        }
        var job = f.job(id);
        assertEquals(Job.COMPLETED, job.state());
        assertFalse(job.enabled());
        assertNull(job.nextRunAt());
        f.clock.advance(Duration.ofMinutes(5));
        f.tick();
        assertEquals(2, f.runs.submissions().size());
    }

    @Test
    void downAcrossTwoScheduledTimesSkipsToTheNextFutureTime() throws Exception {
        var id = create("{\"name\":\"hourly\",\"schedule\":\"every 1h\"}"); // due 10:00, then 11:00
        f.close();
        // the server is down from 09:30 to 11:10; a new process opens the same database
        f = new JobsFixture(dir, TestDatabase.open(dir, "endpoint-jobs"), ZoneOffset.UTC);
        f.clock.set(Instant.parse("2026-01-15T11:10:00Z"));
        f.tick();
        assertEquals(0, f.runs.submissions().size(), "70 min late is more than half the period: skipped");
        assertEquals(Instant.parse("2026-01-15T12:00:00Z"), f.job(id).nextRunAt(), "stays on its grid");
        assertEquals(Job.SCHEDULED, f.job(id).state());
    }

    @Test
    void aRecurringJobLateByLessThanHalfItsPeriodFiresOnce() throws Exception {
        var id = create("{\"name\":\"hourly\",\"schedule\":\"every 1h\"}");
        f.clock.set(Instant.parse("2026-01-15T10:20:00Z"));
        f.tick();
        f.tick();
        assertEquals(1, f.runs.submissions().size());
        assertEquals(Instant.parse("2026-01-15T11:00:00Z"), f.job(id).nextRunAt());
    }

    @Test
    void aOneShotMoreThan120SecondsLateIsMissed() throws Exception {
        var late = create("{\"name\":\"late\",\"schedule\":\"2026-01-15T09:10:00Z\"}");
        var justInTime = create("{\"name\":\"ok\",\"schedule\":\"2026-01-15T09:18:30Z\"}");
        f.clock.set(Instant.parse("2026-01-15T09:20:00Z"));
        f.tick();
        var missed = f.job(late);
        assertEquals(Job.COMPLETED, missed.state());
        assertFalse(missed.enabled());
        assertEquals("error", missed.lastStatus());
        assertEquals("Missed scheduled time", missed.lastError());
        assertEquals(1, f.runs.submissions().size());
        assertEquals(justInTime, f.runs.submissions().getFirst().request().metadata().get("job_id"));
    }

    @Test
    void aFiringDueWhileThePreviousRunIsLiveIsSkipped() throws Exception {
        var id = create("{\"name\":\"slow\",\"schedule\":\"every 1m\"}");
        f.clock.advance(Duration.ofMinutes(1));
        f.tick();
        f.clock.advance(Duration.ofMinutes(1));
        f.tick();
        assertEquals(1, f.runs.submissions().size());
        assertEquals(Instant.parse("2026-01-15T09:03:00Z"), f.job(id).nextRunAt());
        assertEquals(Job.RUNNING, f.job(id).state());
    }

    @Test
    void atCapacityTheFiringWaitsForAFreeSlot() throws Exception {
        var id = create("{\"name\":\"n\",\"schedule\":\"every 10m\"}");
        f.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.AT_CAPACITY, "Too many concurrent runs (max 10)"));
        f.clock.advance(Duration.ofMinutes(10));
        f.tick();
        assertEquals(0, f.runs.submissions().size());
        assertEquals(Instant.parse("2026-01-15T09:10:00Z"), f.job(id).nextRunAt(), "still due");
        assertEquals(Job.SCHEDULED, f.job(id).state());
        f.runs.rejectWith(null);
        f.clock.advance(Duration.ofSeconds(1));
        f.tick();
        assertEquals(1, f.runs.submissions().size());
    }

    @Test
    void withoutAModelTheFiringFailsWithTheHostsMessage() throws Exception {
        var id = create("{\"name\":\"n\",\"schedule\":\"every 10m\"}");
        f.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.MODEL_NOT_CONFIGURED, "No model is configured."));
        f.clock.advance(Duration.ofMinutes(10));
        f.tick();
        var job = f.job(id);
        assertEquals("error", job.lastStatus());
        assertEquals("No model is configured.", job.lastError());
        assertEquals(Job.SCHEDULED, job.state());
        assertEquals(Instant.parse("2026-01-15T09:20:00Z"), job.nextRunAt());
        assertFalse(job.live());
    }

    @Test
    void runNowFiresOnTheNextTickAsManualAndThenKeepsTheSchedule() throws Exception {
        var id = create("{\"name\":\"n\",\"schedule\":\"every 1h\"}");
        f.clock.advance(Duration.ofMinutes(7));
        f.call("POST", "/api/jobs/{job_id}/run", id, null);
        f.tick();
        assertEquals(1, f.runs.submissions().size());
        assertEquals(Instant.parse("2026-01-15T10:07:00Z"), f.job(id).nextRunAt());
        complete(f.runs.submissions().getLast().runId(), "manual output");
        f.tick();
        var run = f.call("GET", "/api/jobs/{job_id}/runs", id, null).responseBody().path("runs").get(0);
        assertEquals("manual", run.path("trigger").asText());
        assertEquals("manual output", run.path("output").asText());
    }

    @Test
    void pausedJobsDoNotFireAndResumeSchedulesFromNow() throws Exception {
        var id = create("{\"name\":\"n\",\"schedule\":\"every 1m\"}");
        f.call("POST", "/api/jobs/{job_id}/pause", id, null);
        f.clock.advance(Duration.ofMinutes(5));
        f.tick();
        assertEquals(0, f.runs.submissions().size());
        f.call("POST", "/api/jobs/{job_id}/resume", id, null);
        f.tick();
        assertEquals(0, f.runs.submissions().size());
        f.clock.advance(Duration.ofMinutes(1));
        f.tick();
        assertEquals(1, f.runs.submissions().size());
    }

    @Test
    void deletingAJobStopsItsLiveRun() throws Exception {
        var id = create("{\"name\":\"n\",\"schedule\":\"every 1m\"}");
        f.clock.advance(Duration.ofMinutes(1));
        f.tick();
        var runId = f.runs.submissions().getLast().runId();
        assertEquals(200, f.call("DELETE", "/api/jobs/{job_id}", id, null).status());
        assertEquals(java.util.List.of(runId), f.runs.stops());
        f.runs.append(runId, new RunEvent.Cancelled("stopped", null, Usage.ZERO));
        f.tick(); // nothing left to settle, no error
        assertTrue(f.store.find(id).isEmpty());
    }

    @Test
    void afterARestartAnInterruptedRunSettlesTheJob() throws Exception {
        var id = create("{\"name\":\"n\",\"schedule\":\"every 1m\"}");
        f.clock.advance(Duration.ofMinutes(1));
        f.tick();
        var runId = f.runs.submissions().getLast().runId();
        f.runs.append(runId, new RunEvent.Interrupted("restart")); // what the host's recovery does at boot
        var restarted = new JobScheduler(f.store, () -> f.runs, f.clock,
                new JobsSettings(ZoneOffset.UTC, Duration.ofSeconds(1), JobsSettings.START_TIMEOUT), "hermes-agent");
        restarted.reconcile();
        restarted.close();
        var job = f.job(id);
        assertEquals("error", job.lastStatus());
        assertEquals("The server restarted before this run settled.", job.lastError());
        assertEquals(Job.SCHEDULED, job.state());
        assertFalse(job.live());
    }

    @Test
    void aZonedCronJobAcrossBothDstChanges() throws Exception {
        f.clock.set(Instant.parse("2026-03-28T12:00:00Z"));
        var id = create("{\"name\":\"night\",\"schedule\":\"30 2 * * *\",\"tz\":\"Europe/Berlin\"}");
        assertEquals(Instant.parse("2026-03-30T00:30:00Z"), f.job(id).nextRunAt(), "29 March has no 02:30");
        f.clock.set(Instant.parse("2026-10-24T12:00:00Z"));
        f.call("POST", "/api/jobs/{job_id}/resume", id, null);
        assertEquals(Instant.parse("2026-10-25T00:30:00Z"), f.job(id).nextRunAt(), "the first 02:30 (CEST)");
        f.clock.set(Instant.parse("2026-10-25T00:30:00Z"));
        f.tick();
        complete(f.runs.submissions().getLast().runId(), "ok");
        f.clock.set(Instant.parse("2026-10-25T01:30:00Z")); // the second 02:30 (CET)
        f.tick();
        assertEquals(1, f.runs.submissions().size(), "the overlap fires once");
        assertEquals(Instant.parse("2026-10-26T01:30:00Z"), f.job(id).nextRunAt());
    }

    @Test
    void twoSchedulerLoopsAndTwoConnectionsRacingFireEachDueJobExactlyOnce() throws Exception {
        var ids = new HashSet<String>();
        for (int i = 0; i < 40; i++) ids.add(create("{\"name\":\"j" + i + "\",\"schedule\":\"every 1m\"}"));
        f.clock.advance(Duration.ofMinutes(1));
        // a second "process": its own connections (own single writer) on the same database file
        var other = TestDatabase.open(dir, "endpoint-jobs");
        var settings = new JobsSettings(ZoneOffset.UTC, Duration.ofSeconds(1), JobsSettings.START_TIMEOUT);
        var loops = new ArrayList<JobScheduler>();
        loops.add(f.scheduler);
        loops.add(new JobScheduler(f.store, () -> f.runs, f.clock, settings, "hermes-agent"));
        loops.add(new JobScheduler(new JobStore(other, f.ctx.json()), () -> f.runs, f.clock, settings, "hermes-agent"));
        var start = new CountDownLatch(1);
        var threads = new ArrayList<Thread>();
        for (var loop : loops) threads.add(Thread.ofPlatform().start(() -> {
            try {
                start.await();
                loop.fireDue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        start.countDown();
        for (var t : threads) t.join(TimeUnit.SECONDS.toMillis(30));
        var fired = f.runs.submissions().stream().map(s -> s.request().metadata().get("job_id")).toList();
        assertEquals(ids.size(), fired.size(), "one run per due job");
        assertEquals(ids, new HashSet<>(fired));
        other.close();
    }
}
