package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jobs API end to end on the assembled distribution: a one-shot a few seconds
 * out fires exactly once as a durable run whose output lands in the job's history and in
 * {@code /v1/runs?job_id=}; pause, resume and run-now over HTTP; DELETE stops a live run; a failing
 * run leaves the job scheduled with {@code last_status: error}.
 */
class JobsEndToEndIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Map<String, String> AUTH = Caduceus.KEY_AUTH;
    static final DateTimeFormatter ISO = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

    @TempDir static Path home;
    static ScriptedUpstream upstream;
    static Caduceus server;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
        server = Caduceus.serve(home, env);
        server.awaitListening();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    @BeforeEach
    void noLeftoverTurns() {
        upstream.setDefault(Turn.error(400, "no turn scripted for this request"));
    }

    @Test
    void aOneShotAFewSecondsOutFiresExactlyOnceAndItsOutputLandsInTheHistory() throws Exception {
        upstream.enqueue(Turn.text("The job's answer."));
        var at = Instant.now().plusSeconds(3).truncatedTo(ChronoUnit.SECONDS);
        var created = post("/api/jobs", "{\"name\":\"one-shot\",\"schedule\":\"" + ISO.format(at.atOffset(ZoneOffset.UTC))
                + "\",\"prompt\":\"answer once\"}");
        assertEquals(201, created.statusCode(), created.body());
        var job = json(created).path("job");
        var id = job.path("id").asText();
        assertEquals("once", job.path("schedule").path("kind").asText());
        assertEquals(1, job.path("repeat").path("times").asInt());

        var runs = awaitRuns(id, r -> r.path("runs").size() == 1 && "completed".equals(r.path("runs").get(0).path("status").asText()));
        var run = runs.path("runs").get(0);
        assertEquals("The job's answer.", run.path("output").asText());
        assertEquals("schedule", run.path("trigger").asText());
        var scheduled = OffsetDateTime.parse(run.path("scheduled_for").asText()).toInstant();
        assertEquals(at, scheduled);
        long lateMillis = Math.round(run.path("created_at").asDouble() * 1000) - scheduled.toEpochMilli();
        assertTrue(lateMillis >= 0, "fired " + -lateMillis + " ms before its time"); // how late: bench/JobPrecisionBench

        var listed = json(get("/v1/runs?job_id=" + id));
        assertEquals(1, listed.path("data").size(), listed.toString());
        var record = listed.path("data").get(0);
        assertEquals(id, record.path("job_id").asText());
        assertEquals(run.path("run_id").asText(), record.path("run_id").asText());
        assertTrue(record.path("session_id").asText().startsWith("cron_" + id + "_"), record.toString());

        var done = awaitJob(id, j -> "completed".equals(j.path("state").asText()));
        var later = json(post("/api/jobs", "{\"name\":\"later\",\"schedule\":\""
                + ISO.format(Instant.now().plusSeconds(2).truncatedTo(ChronoUnit.SECONDS).atOffset(ZoneOffset.UTC)) + "\",\"prompt\":\"tick\"}")).path("job").path("id").asText();
        awaitRuns(later, r -> r.path("runs").size() == 1); // the scheduler ticked past the first job's time again
        delete(later);
        assertEquals(1, json(get("/api/jobs/" + id + "/runs")).path("runs").size(), "still exactly one");
        assertEquals("ok", done.path("last_status").asText());
        assertFalse(done.path("enabled").asBoolean());
        assertEquals(1, done.path("repeat").path("completed").asInt());
        assertEquals(run.path("run_id").asText(), done.path("last_run_id").asText());
        assertEquals(0, json(get("/api/jobs")).path("jobs").size(), "completed jobs are hidden by default");
        assertEquals(1, json(get("/api/jobs?include_disabled=true")).path("jobs").size());
    }

    @Test
    void pauseResumeAndRunNowOverHttp() throws Exception {
        var id = createHourly("controlled");
        var paused = json(post("/api/jobs/" + id + "/pause", ""));
        assertEquals("paused", paused.path("job").path("state").asText());
        assertFalse(paused.path("job").path("enabled").asBoolean());
        assertFalse(paused.path("job").path("paused_at").isNull());
        var resumed = json(post("/api/jobs/" + id + "/resume", ""));
        assertEquals("scheduled", resumed.path("job").path("state").asText());
        assertTrue(resumed.path("job").path("paused_at").isNull());

        upstream.enqueue(Turn.text("Ran on demand."));
        var run = post("/api/jobs/" + id + "/run", "");
        assertEquals(200, run.statusCode(), run.body());
        var runs = awaitRuns(id, r -> r.path("runs").size() == 1 && "completed".equals(r.path("runs").get(0).path("status").asText()));
        assertEquals("manual", runs.path("runs").get(0).path("trigger").asText());
        assertEquals("Ran on demand.", runs.path("runs").get(0).path("output").asText());
        var job = awaitJob(id, j -> "ok".equals(j.path("last_status").asText()));
        assertEquals("scheduled", job.path("state").asText());
        var next = OffsetDateTime.parse(job.path("next_run_at").asText()).toInstant();
        assertTrue(next.isAfter(Instant.now().plus(Duration.ofMinutes(59))), "back on its hourly schedule: " + next);
        delete(id);
    }

    @Test
    void deletingAJobStopsItsLiveRun() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_j", "terminal", "{\"command\":\"sleep 30\"}")));
        var id = createHourly("long");
        post("/api/jobs/" + id + "/run", "");
        var runs = awaitRuns(id, r -> r.path("runs").size() == 1 && "running".equals(r.path("runs").get(0).path("status").asText()));
        var runId = runs.path("runs").get(0).path("run_id").asText();
        assertEquals("running", json(get("/api/jobs/" + id)).path("job").path("state").asText());
        var queues = json(get("/health/detailed")).path("readiness").path("checks").path("background_queues");
        assertEquals(1, queues.path("active_job_runs").asInt(), queues.toString());
        assertEquals(0, queues.path("active_api_runs").asInt(), queues.toString());
        var deleted = server.send("DELETE", "/api/jobs/" + id, null, AUTH);
        assertEquals(200, deleted.statusCode(), deleted.body());
        assertEquals("{\"ok\":true}", deleted.body());
        awaitRunStatus(runId, "cancelled");
        assertEquals(404, get("/api/jobs/" + id).statusCode());
        assertEquals(runId, json(get("/v1/runs?job_id=" + id)).path("data").get(0).path("run_id").asText(),
                "its runs stay listed");
    }

    @Test
    void aFailingRunSetsErrorAndTheJobKeepsItsSchedule() throws Exception {
        upstream.enqueue(Turn.error(400, "the model refused"));
        var id = createHourly("fails");
        post("/api/jobs/" + id + "/run", "");
        var job = awaitJob(id, j -> "error".equals(j.path("last_status").asText()));
        assertFalse(job.path("last_error").isNull(), job.toString());
        assertEquals("scheduled", job.path("state").asText());
        assertTrue(job.path("enabled").asBoolean());
        assertFalse(job.path("next_run_at").isNull());
        var run = json(get("/api/jobs/" + id + "/runs")).path("runs").get(0);
        assertEquals("failed", run.path("status").asText());
        delete(id);
    }

    @Test
    void badInputIsAFlat400WithTheAcceptedForms() throws Exception {
        var bad = post("/api/jobs", "{\"name\":\"x\",\"schedule\":\"sometime\"}");
        assertEquals(400, bad.statusCode());
        assertEquals("{\"error\":\"Invalid schedule 'sometime'. Use 'every 2h', '30m', a cron expression like '0 9 * * *', "
                + "or an ISO timestamp.\"}", bad.body());
        var notJson = post("/api/jobs", "{oops");
        assertEquals(400, notJson.statusCode());
        assertEquals("{\"error\":\"Invalid JSON in request body\"}", notJson.body());
        assertEquals("{\"error\":\"Invalid job ID format\"}", get("/api/jobs/NOT-AN-ID").body());
        assertEquals("{\"error\":\"Job not found\"}", get("/api/jobs/0123456789ab").body());
        var caps = json(get("/v1/capabilities"));
        assertTrue(caps.path("features").path("jobs_admin").asBoolean(), caps.toString());
        assertEquals("/api/jobs/{job_id}/runs", caps.path("endpoints").path("job_runs").path("path").asText());
        assertEquals("/api/jobs/preview", caps.path("endpoints").path("job_preview").path("path").asText());
        var badPreview = post("/api/jobs/preview", "{\"schedule\":\"sometime\"}");
        assertEquals(400, badPreview.statusCode());
        assertEquals(bad.body(), badPreview.body(), "the preview answers as create does");
        var preview = json(post("/api/jobs/preview", "{\"schedule\":\"every 1h\",\"count\":3}"));
        assertEquals(3, preview.path("next_runs").size(), preview.toString());
        assertEquals("interval", preview.path("schedule").path("kind").asText());
    }

    // ---- helpers ---------------------------------------------------------------------------

    static String createHourly(String name) throws Exception {
        var created = post("/api/jobs", "{\"name\":\"" + name + "\",\"schedule\":\"every 1h\",\"prompt\":\"do it\"}");
        assertEquals(201, created.statusCode(), created.body());
        return json(created).path("job").path("id").asText();
    }

    static void delete(String id) throws Exception {
        server.send("DELETE", "/api/jobs/" + id, null, AUTH);
    }

    static JsonNode awaitRuns(String id, Predicate<JsonNode> done) throws Exception {
        return await(() -> json(get("/api/jobs/" + id + "/runs")), done, "runs of job " + id);
    }

    static JsonNode awaitJob(String id, Predicate<JsonNode> done) throws Exception {
        return await(() -> json(get("/api/jobs/" + id)).path("job"), done, "job " + id);
    }

    static void awaitRunStatus(String runId, String status) throws Exception {
        await(() -> json(get("/v1/runs/" + runId)), r -> status.equals(r.path("status").asText()), "run " + runId + " " + status);
    }

    interface Read { JsonNode get() throws Exception; }

    static JsonNode await(Read read, Predicate<JsonNode> done, String what) throws Exception {
        return Eventually.await(Duration.ofSeconds(20), what, read::get, done);
    }

    static HttpResponse<String> post(String path, String body) throws Exception {
        var headers = new HashMap<>(AUTH);
        headers.put("Content-Type", "application/json");
        return server.send("POST", path, body, headers);
    }

    static HttpResponse<String> get(String path) throws Exception {
        return server.get(path, AUTH);
    }

    static JsonNode json(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }
}
