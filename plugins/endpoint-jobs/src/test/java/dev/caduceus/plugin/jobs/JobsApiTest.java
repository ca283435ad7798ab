package dev.caduceus.plugin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.testkit.HostClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every jobs route and every create validation rule, with the flat error bodies, over HTTP on the real host. */
class JobsApiTest {
    static final String INVALID_SCHEDULE = "'. Use 'every 2h', '30m', a cron expression like '0 9 * * *', or an ISO timestamp.";

    JobsHost f;

    @BeforeEach
    void open() {
        f = JobsHost.start();
    }

    @AfterEach
    void close() {
        f.close();
    }

    static void assertFlat(HostClient.Response answer, int status, String message) {
        assertEquals(status, answer.status(), answer.body());
        assertEquals("{\"error\":" + quote(message) + "}", answer.json().toString());
    }

    static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    HostClient.Response post(String body) {
        return f.call("POST", "/api/jobs", body);
    }

    @Test
    void createAnswers201WithTheWholeJobObjectInContractOrder() throws Exception {
        var answer = post("{\"name\":\"  Daily briefing \",\"schedule\":\"0 9 * * *\",\"tz\":\"Europe/Berlin\",\"prompt\":\"Summarize\",\"temperature\":1}");
        assertEquals(201, answer.status(), answer.body());
        var job = answer.json().path("job");
        assertTrue(job.path("id").asText().matches("[0-9a-f]{12}"), job.toString());
        List<String> keys = new ArrayList<>();
        job.fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("id", "name", "prompt", "skills", "skill", "model", "provider", "base_url", "script",
                "no_agent", "context_from", "schedule", "schedule_display", "repeat", "enabled", "state", "paused_at",
                "paused_reason", "created_at", "next_run_at", "last_run_at", "last_status", "last_error",
                "last_delivery_error", "deliver", "origin", "enabled_toolsets", "workdir", "profile", "last_run_id", "owner",
                "webhook"),
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

        var got = f.call("GET", "/api/jobs/" + job.path("id").asText(), null);
        assertEquals(200, got.status());
        assertEquals(job, got.json().path("job"));
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
        assertFlat(post(body), 400, message);
    }

    @Test
    void lengthsCountCharactersAtTheLimit() throws Exception {
        var name200 = "é".repeat(200);
        assertEquals(201, post("{\"name\":\"" + name200 + "\",\"schedule\":\"30m\",\"prompt\":\""
                + "p".repeat(5000) + "\"}").status());
        assertFlat(post("{\"name\":\"" + name200 + "x\",\"schedule\":\"30m\"}"), 400, "Name must be ≤ 200 characters");
        assertFlat(post("{\"name\":\"n\",\"schedule\":\"30m\",\"prompt\":\"" + "p".repeat(5001) + "\"}"), 400,
                "Prompt must be ≤ 5000 characters");
    }

    @Test
    void theScheduleIsJudgedBeforeTheZoneAndTheMessageListsTheForms() throws Exception {
        assertFlat(post("{\"name\":\"n\",\"schedule\":\"whenever\",\"tz\":\"Nowhere\"}"), 400,
                "Invalid schedule 'whenever" + INVALID_SCHEDULE);
        assertFlat(post("{\"name\":\"n\",\"schedule\":\"61 * * * *\"}"), 400, "Invalid schedule '61 * * * *" + INVALID_SCHEDULE);
    }

    @Test
    void nonJsonAndNonObjectBodiesAreFlat400s() throws Exception {
        assertFlat(post("{not json"), 400, "Invalid JSON in request body");
        assertFlat(post(""), 400, "Invalid JSON in request body");
        assertFlat(post("[1,2]"), 400, "Invalid JSON in request body");
        var id = f.createId("{\"name\":\"n\",\"schedule\":\"every 1h\"}");
        assertFlat(f.call("PATCH", "/api/jobs/" + id, "nope"), 400, "Invalid JSON in request body");
    }

    @Test
    void invalidAndUnknownIdsOnEveryJobRoute() throws Exception {
        String[][] routes = {{"GET", ""}, {"PATCH", ""}, {"DELETE", ""}, {"POST", "/pause"}, {"POST", "/resume"},
                {"POST", "/run"}, {"GET", "/runs"}};
        for (var r : routes) {
            for (var bad : List.of("ABCDEF123456", "abc", "a1b2c3d4e5f6a", "..%2E.etc12ab", "a1b2c3d4e5f%20")) {
                assertFlat(f.call(r[0], "/api/jobs/" + bad + r[1], "{\"name\":\"x\"}"), 400, "Invalid job ID format");
            }
            assertFlat(f.call(r[0], "/api/jobs/a1b2c3d4e5f6" + r[1], "{\"name\":\"x\"}"), 404, "Job not found");
        }
    }

    @Test
    void patchKeepsOnlyAllowedKeysAndValidatesLikeCreate() throws Exception {
        var id = f.createId("{\"name\":\"n\",\"schedule\":\"every 1h\"}");
        var path = "/api/jobs/" + id;
        assertFlat(f.call("PATCH", path, "{\"model\":\"x\",\"script\":\"rm\"}"), 400, "No valid fields to update");
        assertFlat(f.call("PATCH", path, "{}"), 400, "No valid fields to update");
        assertFlat(f.call("PATCH", path, "{\"name\":\"\"}"), 400, "Name is required");
        assertFlat(f.call("PATCH", path, "{\"schedule\":\"bogus\"}"), 400, "Invalid schedule 'bogus" + INVALID_SCHEDULE);
        assertFlat(f.call("PATCH", path, "{\"tz\":\"Bad/Zone\"}"), 400, "Invalid time zone 'Bad/Zone'");
        assertFlat(f.call("PATCH", path, "{\"repeat\":0}"), 400, "Repeat must be a positive integer");
        assertFlat(f.call("PATCH", path, "{\"prompt\":\"" + "p".repeat(5001) + "\"}"), 400, "Prompt must be ≤ 5000 characters");
        assertFlat(f.call("PATCH", path, "{\"deliver\":\"email\"}"), 400, "Unsupported delivery target 'email'");

        f.clock.advance(Duration.ofMinutes(10));
        var ok = f.call("PATCH", path,
                "{\"name\":\"renamed\",\"model\":\"ignored\",\"schedule\":\"0 9 * * *\",\"tz\":\"Europe/Berlin\",\"skills\":[\"a\"],\"skill\":\"a\"}");
        assertEquals(200, ok.status(), ok.body());
        var job = ok.json().path("job");
        assertEquals("renamed", job.path("name").asText());
        assertTrue(job.path("model").isNull());
        assertEquals("[\"a\"]", job.path("skills").toString());
        assertEquals("2026-01-16T08:00:00+00:00", job.path("next_run_at").asText());
        // a new tz alone re-reads the stored cron expression
        var tzOnly = f.call("PATCH", path, "{\"tz\":\"America/New_York\"}").json().path("job");
        assertEquals("0 9 * * * (America/New_York)", tzOnly.path("schedule_display").asText());
        assertEquals("2026-01-15T14:00:00+00:00", tzOnly.path("next_run_at").asText());
    }

    @Test
    void patchOfAPausedJobDoesNotReschedule() throws Exception {
        var id = f.createId("{\"name\":\"n\",\"schedule\":\"every 1h\"}");
        f.call("POST", "/api/jobs/" + id + "/pause", null);
        var job = f.call("PATCH", "/api/jobs/" + id, "{\"schedule\":\"every 2h\"}").json().path("job");
        assertEquals("every 120m", job.path("schedule_display").asText());
        assertEquals("2026-01-15T10:00:00+00:00", job.path("next_run_at").asText());
        assertEquals("paused", job.path("state").asText());
    }

    @Test
    void pauseResumeAndRunNow() throws Exception {
        var id = f.createId("{\"name\":\"n\",\"schedule\":\"every 1h\"}");
        f.clock.advance(Duration.ofMinutes(5));
        var paused = f.call("POST", "/api/jobs/" + id + "/pause", null).json().path("job");
        assertFalse(paused.path("enabled").asBoolean());
        assertEquals("paused", paused.path("state").asText());
        assertEquals("2026-01-15T09:05:00+00:00", paused.path("paused_at").asText());
        assertTrue(paused.path("paused_reason").isNull());
        assertEquals(0, f.call("GET", "/api/jobs", null).json().path("jobs").size(), "paused jobs are hidden");

        f.clock.advance(Duration.ofMinutes(5));
        var resumed = f.call("POST", "/api/jobs/" + id + "/resume", null).json().path("job");
        assertTrue(resumed.path("enabled").asBoolean());
        assertEquals("scheduled", resumed.path("state").asText());
        assertTrue(resumed.path("paused_at").isNull());
        assertEquals("2026-01-15T10:10:00+00:00", resumed.path("next_run_at").asText(), "next_run_at from now");

        f.call("POST", "/api/jobs/" + id + "/pause", null);
        var run = f.call("POST", "/api/jobs/" + id + "/run", "ignored").json().path("job");
        assertTrue(run.path("enabled").asBoolean());
        assertEquals("scheduled", run.path("state").asText());
        assertEquals("2026-01-15T09:10:00+00:00", run.path("next_run_at").asText());
    }

    @Test
    void listIsOrderedByNextRunAndIncludeDisabledShowsTheRest() throws Exception {
        var later = f.createId("{\"name\":\"later\",\"schedule\":\"every 3h\"}");
        var sooner = f.createId("{\"name\":\"sooner\",\"schedule\":\"every 1h\"}");
        var off = f.createId("{\"name\":\"off\",\"schedule\":\"every 2h\"}");
        f.call("POST", "/api/jobs/" + off + "/pause", null);
        assertEquals(List.of(sooner, later), ids(f.call("GET", "/api/jobs", null).json()));
        assertEquals(List.of(sooner, off, later), ids(f.call("GET", "/api/jobs?include_disabled=true", null).json()));
        assertEquals(3, f.call("GET", "/api/jobs?include_disabled=yes", null).json().path("jobs").size());
        assertEquals(2, f.call("GET", "/api/jobs?include_disabled=maybe", null).json().path("jobs").size());
    }

    private static List<String> ids(JsonNode answer) {
        var ids = new ArrayList<String>();
        answer.path("jobs").forEach(j -> ids.add(j.path("id").asText()));
        return ids;
    }

    @Test
    void deleteAnswersOkAndTheJobIsGone() throws Exception {
        var id = f.createId("{\"name\":\"n\",\"schedule\":\"every 1h\"}");
        var answer = f.call("DELETE", "/api/jobs/" + id, null);
        assertEquals(200, answer.status());
        assertEquals("{\"ok\":true}", answer.json().toString());
        assertFlat(f.call("GET", "/api/jobs/" + id, null), 404, "Job not found");
        assertFlat(f.call("DELETE", "/api/jobs/" + id, null), 404, "Job not found");
    }

    @Test
    void runHistoryValidatesLimitAndCursor() throws Exception {
        var id = f.createId("{\"name\":\"n\",\"schedule\":\"every 1h\"}");
        assertEquals("{\"runs\":[],\"has_more\":false,\"next_cursor\":null}", f.history(id).toString());
        for (var bad : List.of("0", "101", "x", "-1")) {
            assertFlat(f.call("GET", "/api/jobs/" + id + "/runs?limit=" + bad, null), 400, "Invalid limit");
        }
        assertFlat(f.call("GET", "/api/jobs/" + id + "/runs?cursor=!!", null), 400, "Invalid cursor");
    }

    @Test
    void runHistoryPagesNewestFirstWithACursor() throws Exception {
        var id = f.createId("{\"name\":\"n\",\"schedule\":\"every 1m\"}");
        for (int i = 1; i <= 3; i++) {
            f.clock.advance(Duration.ofMinutes(1));
            f.awaitRuns(id, i);
            f.awaitSettled(id, "ok");
        }
        var first = f.call("GET", "/api/jobs/" + id + "/runs?limit=2", null).json();
        assertEquals(2, first.path("runs").size(), first.toString());
        assertTrue(first.path("has_more").asBoolean());
        assertEquals("2026-01-15T09:03:00+00:00", first.path("runs").get(0).path("scheduled_for").asText());
        assertEquals("2026-01-15T09:02:00+00:00", first.path("runs").get(1).path("scheduled_for").asText());
        var rest = f.call("GET", "/api/jobs/" + id + "/runs?limit=2&cursor=" + first.path("next_cursor").asText(), null).json();
        assertEquals(1, rest.path("runs").size(), rest.toString());
        assertEquals("2026-01-15T09:01:00+00:00", rest.path("runs").get(0).path("scheduled_for").asText());
        assertFalse(rest.path("has_more").asBoolean());
        assertTrue(rest.path("next_cursor").isNull());
    }
}
