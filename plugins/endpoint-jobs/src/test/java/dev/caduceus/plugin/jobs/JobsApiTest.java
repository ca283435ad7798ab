package dev.caduceus.plugin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.testkit.FakeExchange;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every jobs route and every create validation rule, with the flat error bodies. */
class JobsApiTest {
    static final String INVALID_SCHEDULE = "'. Use 'every 2h', '30m', a cron expression like '0 9 * * *', or an ISO timestamp.";

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

    static void assertFlat(FakeExchange ex, int status, String message) {
        assertEquals(status, ex.status(), ex.responseBody().toString());
        assertEquals("{\"error\":" + quote(message) + "}", ex.responseBody().toString());
    }

    static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    @Test
    void createAnswers201WithTheWholeJobObjectInContractOrder() throws Exception {
        var ex = f.call("POST", "/api/jobs", null,
                "{\"name\":\"  Daily briefing \",\"schedule\":\"0 9 * * *\",\"tz\":\"Europe/Berlin\",\"prompt\":\"Summarize\",\"temperature\":1}");
        assertEquals(201, ex.status());
        var job = ex.responseBody().path("job");
        assertTrue(job.path("id").asText().matches("[0-9a-f]{12}"), job.toString());
        List<String> keys = new ArrayList<>();
        job.fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("id", "name", "prompt", "skills", "skill", "model", "provider", "base_url", "script",
                "no_agent", "context_from", "schedule", "schedule_display", "repeat", "enabled", "state", "paused_at",
                "paused_reason", "created_at", "next_run_at", "last_run_at", "last_status", "last_error",
                "last_delivery_error", "deliver", "origin", "enabled_toolsets", "workdir", "profile", "last_run_id", "owner"),
                keys);
        assertEquals("Daily briefing", job.path("name").asText());
        assertEquals("{\"kind\":\"cron\",\"expr\":\"0 9 * * *\",\"tz\":\"Europe/Berlin\",\"display\":\"0 9 * * * (Europe/Berlin)\"}",
                job.path("schedule").toString());
        assertEquals("0 9 * * * (Europe/Berlin)", job.path("schedule_display").asText());
        assertEquals("{\"times\":null,\"completed\":0}", job.path("repeat").toString());
        assertTrue(job.path("enabled").asBoolean());
        assertEquals("scheduled", job.path("state").asText());
        assertEquals("2026-01-15T09:00:00+00:00", job.path("created_at").asText());
        assertEquals("2026-01-16T08:00:00+00:00", job.path("next_run_at").asText());
        assertEquals("local", job.path("deliver").asText());
        assertTrue(job.path("last_status").isNull());

        var got = f.call("GET", "/api/jobs/{job_id}", job.path("id").asText(), null);
        assertEquals(200, got.status());
        assertEquals(job, got.responseBody().path("job"));
    }

    @Test
    void oneShotsHaveRepeatOnceAndDurationsCountFromNow() throws Exception {
        var job = f.create("{\"name\":\"soon\",\"schedule\":\"30m\",\"repeat\":5}");
        assertEquals("{\"kind\":\"once\",\"run_at\":\"2026-01-15T09:30:00+00:00\",\"display\":\"once in 30m\"}",
                job.path("schedule").toString());
        assertEquals(1, job.path("repeat").path("times").asInt());
        assertEquals("2026-01-15T09:30:00+00:00", job.path("next_run_at").asText());
        var every = f.create("{\"name\":\"often\",\"schedule\":\"every 2h\",\"repeat\":3}");
        assertEquals(3, every.path("repeat").path("times").asInt());
        assertEquals("2026-01-15T11:00:00+00:00", every.path("next_run_at").asText());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{}|Name is required",
            "{\"name\":\"   \",\"schedule\":\"30m\"}|Name is required",
            "{\"name\":[\"x\"],\"schedule\":\"30m\"}|Name is required",
            "{\"name\":\"n\"}|Schedule is required",
            "{\"name\":\"n\",\"schedule\":\"  \"}|Schedule is required",
            "{\"name\":\"n\",\"schedule\":\"every 30m\",\"tz\":\"Mars/Olympus\"}|Invalid time zone 'Mars/Olympus'",
            "{\"name\":\"n\",\"schedule\":\"every 30m\",\"tz\":\"+02:00\"}|Invalid time zone '+02:00'",
            "{\"name\":\"n\",\"schedule\":\"every 30m\",\"repeat\":0}|Repeat must be a positive integer",
            "{\"name\":\"n\",\"schedule\":\"every 30m\",\"repeat\":-1}|Repeat must be a positive integer",
            "{\"name\":\"n\",\"schedule\":\"every 30m\",\"repeat\":1.5}|Repeat must be a positive integer",
            "{\"name\":\"n\",\"schedule\":\"every 30m\",\"repeat\":\"3\"}|Repeat must be a positive integer",
            "{\"name\":\"n\",\"schedule\":\"every 30m\",\"deliver\":\"telegram\"}|Unsupported delivery target 'telegram'",
    })
    void createValidationMessages(String body, String message) throws Exception {
        assertFlat(f.call("POST", "/api/jobs", null, body), 400, message);
    }

    @Test
    void lengthsCountCharactersAtTheLimit() throws Exception {
        var name200 = "é".repeat(200);
        assertEquals(201, f.call("POST", "/api/jobs", null, "{\"name\":\"" + name200 + "\",\"schedule\":\"30m\",\"prompt\":\""
                + "p".repeat(5000) + "\"}").status());
        assertFlat(f.call("POST", "/api/jobs", null, "{\"name\":\"" + name200 + "x\",\"schedule\":\"30m\"}"), 400,
                "Name must be ≤ 200 characters");
        assertFlat(f.call("POST", "/api/jobs", null, "{\"name\":\"n\",\"schedule\":\"30m\",\"prompt\":\"" + "p".repeat(5001)
                + "\"}"), 400, "Prompt must be ≤ 5000 characters");
    }

    @Test
    void theScheduleIsJudgedBeforeTheZoneAndTheMessageListsTheForms() throws Exception {
        assertFlat(f.call("POST", "/api/jobs", null, "{\"name\":\"n\",\"schedule\":\"whenever\",\"tz\":\"Nowhere\"}"), 400,
                "Invalid schedule 'whenever" + INVALID_SCHEDULE);
        assertFlat(f.call("POST", "/api/jobs", null, "{\"name\":\"n\",\"schedule\":\"61 * * * *\"}"), 400,
                "Invalid schedule '61 * * * *" + INVALID_SCHEDULE);
    }

    @Test
    void nonJsonAndNonObjectBodiesAreFlat400s() throws Exception {
        assertFlat(f.call("POST", "/api/jobs", null, "{not json"), 400, "Invalid JSON in request body");
        assertFlat(f.call("POST", "/api/jobs", null, ""), 400, "Invalid JSON in request body");
        assertFlat(f.call("POST", "/api/jobs", null, "[1,2]"), 400, "Invalid JSON in request body");
        var id = f.create("{\"name\":\"n\",\"schedule\":\"every 1h\"}").path("id").asText();
        assertFlat(f.call("PATCH", "/api/jobs/{job_id}", id, "nope"), 400, "Invalid JSON in request body");
    }

    @Test
    void invalidAndUnknownIdsOnEveryJobRoute() throws Exception {
        String[][] routes = {{"GET", "/api/jobs/{job_id}"}, {"PATCH", "/api/jobs/{job_id}"}, {"DELETE", "/api/jobs/{job_id}"},
                {"POST", "/api/jobs/{job_id}/pause"}, {"POST", "/api/jobs/{job_id}/resume"},
                {"POST", "/api/jobs/{job_id}/run"}, {"GET", "/api/jobs/{job_id}/runs"}};
        for (var r : routes) {
            for (var bad : List.of("ABCDEF123456", "abc", "a1b2c3d4e5f6a", "../../etc12")) {
                assertFlat(f.call(r[0], r[1], bad, "{\"name\":\"x\"}"), 400, "Invalid job ID format");
            }
            assertFlat(f.call(r[0], r[1], "a1b2c3d4e5f6", "{\"name\":\"x\"}"), 404, "Job not found");
        }
    }

    @Test
    void patchKeepsOnlyAllowedKeysAndValidatesLikeCreate() throws Exception {
        var id = f.create("{\"name\":\"n\",\"schedule\":\"every 1h\"}").path("id").asText();
        assertFlat(f.call("PATCH", "/api/jobs/{job_id}", id, "{\"model\":\"x\",\"script\":\"rm\"}"), 400, "No valid fields to update");
        assertFlat(f.call("PATCH", "/api/jobs/{job_id}", id, "{}"), 400, "No valid fields to update");
        assertFlat(f.call("PATCH", "/api/jobs/{job_id}", id, "{\"name\":\"\"}"), 400, "Name is required");
        assertFlat(f.call("PATCH", "/api/jobs/{job_id}", id, "{\"schedule\":\"bogus\"}"), 400,
                "Invalid schedule 'bogus" + INVALID_SCHEDULE);
        assertFlat(f.call("PATCH", "/api/jobs/{job_id}", id, "{\"tz\":\"Bad/Zone\"}"), 400, "Invalid time zone 'Bad/Zone'");
        assertFlat(f.call("PATCH", "/api/jobs/{job_id}", id, "{\"repeat\":0}"), 400, "Repeat must be a positive integer");
        assertFlat(f.call("PATCH", "/api/jobs/{job_id}", id, "{\"prompt\":\"" + "p".repeat(5001) + "\"}"), 400,
                "Prompt must be ≤ 5000 characters");
        assertFlat(f.call("PATCH", "/api/jobs/{job_id}", id, "{\"deliver\":\"email\"}"), 400, "Unsupported delivery target 'email'");

        f.clock.advance(Duration.ofMinutes(10));
        var ok = f.call("PATCH", "/api/jobs/{job_id}", id,
                "{\"name\":\"renamed\",\"model\":\"ignored\",\"schedule\":\"0 9 * * *\",\"tz\":\"Europe/Berlin\",\"skills\":[\"a\"],\"skill\":\"a\"}");
        assertEquals(200, ok.status());
        var job = ok.responseBody().path("job");
        assertEquals("renamed", job.path("name").asText());
        assertTrue(job.path("model").isNull());
        assertEquals("[\"a\"]", job.path("skills").toString());
        assertEquals("2026-01-16T08:00:00+00:00", job.path("next_run_at").asText());
        // a new tz alone re-reads the stored cron expression
        var tzOnly = f.call("PATCH", "/api/jobs/{job_id}", id, "{\"tz\":\"America/New_York\"}").responseBody().path("job");
        assertEquals("0 9 * * * (America/New_York)", tzOnly.path("schedule_display").asText());
        assertEquals("2026-01-15T14:00:00+00:00", tzOnly.path("next_run_at").asText());
    }

    @Test
    void patchOfAPausedJobDoesNotReschedule() throws Exception {
        var id = f.create("{\"name\":\"n\",\"schedule\":\"every 1h\"}").path("id").asText();
        f.call("POST", "/api/jobs/{job_id}/pause", id, null);
        var job = f.call("PATCH", "/api/jobs/{job_id}", id, "{\"schedule\":\"every 2h\"}").responseBody().path("job");
        assertEquals("every 120m", job.path("schedule_display").asText());
        assertEquals("2026-01-15T10:00:00+00:00", job.path("next_run_at").asText());
        assertEquals("paused", job.path("state").asText());
    }

    @Test
    void pauseResumeAndRunNow() throws Exception {
        var id = f.create("{\"name\":\"n\",\"schedule\":\"every 1h\"}").path("id").asText();
        f.clock.advance(Duration.ofMinutes(5));
        var paused = f.call("POST", "/api/jobs/{job_id}/pause", id, null).responseBody().path("job");
        assertFalse(paused.path("enabled").asBoolean());
        assertEquals("paused", paused.path("state").asText());
        assertEquals("2026-01-15T09:05:00+00:00", paused.path("paused_at").asText());
        assertTrue(paused.path("paused_reason").isNull());
        assertEquals(0, f.call("GET", "/api/jobs", null, null).responseBody().path("jobs").size(), "paused jobs are hidden");
        var all = f.call("GET", "/api/jobs", null, null);
        assertEquals(0, all.responseBody().path("jobs").size());

        f.clock.advance(Duration.ofMinutes(5));
        var resumed = f.call("POST", "/api/jobs/{job_id}/resume", id, null).responseBody().path("job");
        assertTrue(resumed.path("enabled").asBoolean());
        assertEquals("scheduled", resumed.path("state").asText());
        assertTrue(resumed.path("paused_at").isNull());
        assertEquals("2026-01-15T10:10:00+00:00", resumed.path("next_run_at").asText(), "next_run_at from now");

        f.call("POST", "/api/jobs/{job_id}/pause", id, null);
        var run = f.call("POST", "/api/jobs/{job_id}/run", id, "ignored").responseBody().path("job");
        assertTrue(run.path("enabled").asBoolean());
        assertEquals("scheduled", run.path("state").asText());
        assertEquals("2026-01-15T09:10:00+00:00", run.path("next_run_at").asText());
    }

    @Test
    void listIsOrderedByNextRunAndIncludeDisabledShowsTheRest() throws Exception {
        var later = f.create("{\"name\":\"later\",\"schedule\":\"every 3h\"}").path("id").asText();
        var sooner = f.create("{\"name\":\"sooner\",\"schedule\":\"every 1h\"}").path("id").asText();
        var off = f.create("{\"name\":\"off\",\"schedule\":\"every 2h\"}").path("id").asText();
        f.call("POST", "/api/jobs/{job_id}/pause", off, null);
        assertEquals(List.of(sooner, later), ids(f.call("GET", "/api/jobs", null, null).responseBody()));
        var ex = new FakeExchange(f.ctx.json(), "GET", "/api/jobs").queryParam("include_disabled", "true");
        var all = f.call("GET", "/api/jobs", null, null); // default
        assertEquals(2, all.responseBody().path("jobs").size());
        assertEquals(3, listWith("include_disabled", "yes").path("jobs").size());
        assertEquals(2, listWith("include_disabled", "maybe").path("jobs").size());
        assertEquals("GET", ex.method());
    }

    private JsonNode listWith(String name, String value) throws Exception {
        var family = new dev.caduceus.plugin.jobs.http.JobsFamily(f.store, f.commands, () -> f.runs, f.clock,
                java.time.ZoneOffset.UTC);
        var handler = new dev.caduceus.spi.http.HttpHandler[1];
        family.routes(new dev.caduceus.spi.http.Routes() {
            @Override
            public dev.caduceus.spi.http.Routes route(String m, String t, String n, dev.caduceus.spi.http.HttpHandler h) {
                if (m.equals("GET") && t.equals("/api/jobs")) handler[0] = h;
                return this;
            }
        });
        return new FakeExchange(f.ctx.json(), "GET", "/api/jobs").queryParam(name, value).call(handler[0]).responseBody();
    }

    private static List<String> ids(JsonNode answer) {
        var ids = new ArrayList<String>();
        answer.path("jobs").forEach(j -> ids.add(j.path("id").asText()));
        return ids;
    }

    @Test
    void deleteAnswersOkAndTheJobIsGone() throws Exception {
        var id = f.create("{\"name\":\"n\",\"schedule\":\"every 1h\"}").path("id").asText();
        var ex = f.call("DELETE", "/api/jobs/{job_id}", id, null);
        assertEquals(200, ex.status());
        assertEquals("{\"ok\":true}", ex.responseBody().toString());
        assertFlat(f.call("GET", "/api/jobs/{job_id}", id, null), 404, "Job not found");
        assertFlat(f.call("DELETE", "/api/jobs/{job_id}", id, null), 404, "Job not found");
    }

    @Test
    void runHistoryValidatesLimitAndCursor() throws Exception {
        var id = f.create("{\"name\":\"n\",\"schedule\":\"every 1h\"}").path("id").asText();
        var empty = f.call("GET", "/api/jobs/{job_id}/runs", id, null);
        assertEquals("{\"runs\":[],\"has_more\":false,\"next_cursor\":null}", empty.responseBody().toString());
        for (var bad : List.of("0", "101", "x", "-1")) {
            var ex = new FakeExchange(f.ctx.json(), "GET", "/x").pathParam("job_id", id).queryParam("limit", bad);
            assertFlat(callRuns(ex), 400, "Invalid limit");
        }
        var ex = new FakeExchange(f.ctx.json(), "GET", "/x").pathParam("job_id", id).queryParam("cursor", "!!");
        assertFlat(callRuns(ex), 400, "Invalid cursor");
    }

    private FakeExchange callRuns(FakeExchange ex) throws Exception {
        var family = new dev.caduceus.plugin.jobs.http.JobsFamily(f.store, f.commands, () -> f.runs, f.clock,
                java.time.ZoneOffset.UTC);
        var handler = new dev.caduceus.spi.http.HttpHandler[1];
        family.routes(new dev.caduceus.spi.http.Routes() {
            @Override
            public dev.caduceus.spi.http.Routes route(String m, String t, String n, dev.caduceus.spi.http.HttpHandler h) {
                if (t.endsWith("/runs")) handler[0] = h;
                return this;
            }
        });
        return ex.call(handler[0]);
    }

    @Test
    void capabilitiesNameTheRoutesAndTheFlag() {
        var family = new dev.caduceus.plugin.jobs.http.JobsFamily(f.store, f.commands, () -> f.runs, f.clock,
                java.time.ZoneOffset.UTC);
        assertEquals("{\"jobs_admin\":true}", family.features().toString());
        var names = new ArrayList<String>();
        family.routes(new dev.caduceus.spi.http.Routes() {
            @Override
            public dev.caduceus.spi.http.Routes route(String m, String t, String n, dev.caduceus.spi.http.HttpHandler h) {
                if (n != null) names.add(n + " " + m + " " + t);
                return this;
            }
        });
        assertEquals(List.of("jobs GET /api/jobs", "job_runs GET /api/jobs/{job_id}/runs"), names);
    }
}
