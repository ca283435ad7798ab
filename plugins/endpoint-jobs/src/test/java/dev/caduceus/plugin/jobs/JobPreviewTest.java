package dev.caduceus.plugin.jobs;

import static dev.caduceus.plugin.jobs.JobsApiTest.INVALID_SCHEDULE;
import static dev.caduceus.plugin.jobs.JobsApiTest.assertFlat;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code POST /api/jobs/preview} on the real host (clock at {@link JobsHost#T0}, default zone UTC): the
 * schedule object and next times a job created with the same fields gets, create's own validation
 * messages, and nothing stored.
 */
class JobPreviewTest {
    static final String PATH = "/api/jobs/preview";

    JobsHost f;

    @BeforeEach
    void open() {
        f = JobsHost.start();
    }

    @AfterEach
    void close() {
        f.close();
    }

    HostClient.Response preview(String body) {
        return f.call("POST", PATH, body);
    }

    JsonNode ok(String body) {
        var answer = preview(body);
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.header("Content-Type").orElse("").startsWith("application/json"), answer.headers().toString());
        return answer.json();
    }

    static List<String> times(JsonNode preview) {
        var times = new ArrayList<String>();
        preview.path("next_runs").forEach(t -> times.add(t.asText()));
        return times;
    }

    @Test
    void cronInAZoneGivesTheCreatedJobsScheduleAndNextRunThenTheFollowingDays() throws Exception {
        var fields = "\"schedule\":\"0 9 * * *\",\"tz\":\"Europe/Berlin\"";
        var preview = ok("{" + fields + "}");
        var keys = new ArrayList<String>();
        preview.fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("schedule", "next_runs"), keys);
        assertEquals(List.of("2026-01-16T08:00:00+00:00", "2026-01-17T08:00:00+00:00", "2026-01-18T08:00:00+00:00",
                "2026-01-19T08:00:00+00:00", "2026-01-20T08:00:00+00:00"), times(preview), "5 by default");

        var job = f.create("{\"name\":\"daily\"," + fields + "}");
        assertEquals(job.path("schedule"), preview.path("schedule"));
        assertEquals(job.path("next_run_at").asText(), times(preview).getFirst());
    }

    @Test
    void everyScheduleKindAgreesWithTheJobCreatedFromIt() throws Exception {
        for (var schedule : List.of("every 2h", "every 1 day", "*/15 9-17 * * 1-5", "30m", "2026-02-01 10:00",
                "2026-01-15T09:01:30Z")) {
            var preview = ok("{\"schedule\":\"" + schedule + "\",\"count\":20}");
            var job = f.create("{\"name\":\"n\",\"schedule\":\"" + schedule + "\"}");
            assertEquals(job.path("schedule"), preview.path("schedule"), schedule);
            assertEquals(job.path("next_run_at").asText(), times(preview).getFirst(), schedule);
            assertEquals(job.path("schedule").path("kind").asText().equals("once") ? 1 : 20, times(preview).size(), schedule);
        }
    }

    @Test
    void intervalsAndCountsFromNow() {
        assertEquals(List.of("2026-01-15T11:00:00+00:00", "2026-01-15T13:00:00+00:00", "2026-01-15T15:00:00+00:00"),
                times(ok("{\"schedule\":\"every 2h\",\"count\":3}")));
        assertEquals(1, times(ok("{\"schedule\":\"every 2h\",\"count\":1}")).size());
        assertEquals(20, times(ok("{\"schedule\":\"every 2h\",\"count\":20}")).size());
        assertEquals(5, times(ok("{\"schedule\":\"every 2h\",\"count\":null}")).size(), "null is the default");
        f.clock.advance(Duration.ofMinutes(7));
        assertEquals("2026-01-15T09:37:00+00:00", times(ok("{\"schedule\":\"30m\"}")).getFirst(), "from the clock's now");
    }

    @Test
    void aOneShotThatWouldBeMissedHasNoTime() {
        var passed = ok("{\"schedule\":\"2026-01-15T08:00:00Z\"}");
        assertEquals("once", passed.path("schedule").path("kind").asText());
        assertEquals(List.of(), times(passed));
        var withinGrace = ok("{\"schedule\":\"2026-01-15T08:59:00Z\"}");
        assertEquals(List.of("2026-01-15T08:59:00+00:00"), times(withinGrace), "the next tick still fires it");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "21", "-1", "1.5", "5.0", "\"5\"", "true", "[5]", "{}", "99999999999"})
    void aCountThatIsNotAnIntegerFrom1To20IsAFlat400(String count) {
        assertFlat(preview("{\"schedule\":\"every 1h\",\"count\":" + count + "}"), 400,
                "Count must be an integer from 1 to 20");
    }

    /** The preview answers a bad schedule or zone exactly as create does (create judges the name first). */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "|Schedule is required",
            "\"schedule\":null|Schedule is required",
            "\"schedule\":\"   \"|Schedule is required",
            "\"schedule\":[\"every 1h\"]|Schedule is required",
            "\"schedule\":{\"kind\":\"cron\"}|Schedule is required",
            "\"schedule\":\"whenever\"|Invalid schedule 'whenever" + INVALID_SCHEDULE,
            "\"schedule\":\"61 * * * *\"|Invalid schedule '61 * * * *" + INVALID_SCHEDULE,
            "\"schedule\":\"every 0m\"|Invalid schedule 'every 0m" + INVALID_SCHEDULE,
            "\"schedule\":12|Invalid schedule '12" + INVALID_SCHEDULE,
            "\"schedule\":\"every 1h\",\"tz\":\"Mars/Olympus\"|Invalid time zone 'Mars/Olympus'",
            "\"schedule\":\"every 1h\",\"tz\":7|Invalid time zone '7'",
            "\"schedule\":\"every 1h\",\"tz\":[\"UTC\"]|Invalid time zone '[\"UTC\"]'",
            "\"schedule\":\"whenever\",\"tz\":\"Nowhere\",\"count\":0|Invalid schedule 'whenever" + INVALID_SCHEDULE,
            "\"schedule\":\"every 1h\",\"tz\":\"Nowhere\",\"count\":0|Invalid time zone 'Nowhere'",
    })
    void invalidSchedulesAndZonesAreCreatesOwnAnswers(String fields, String message) {
        var body = fields == null ? "" : fields;
        var preview = preview("{" + body + "}");
        assertFlat(preview, 400, message);
        var create = f.call("POST", "/api/jobs", "{\"name\":\"n\"" + (body.isEmpty() ? "" : "," + body) + "}");
        assertEquals(create.status(), preview.status());
        assertEquals(create.body(), preview.body());
    }

    @Test
    void malformedOrNonObjectBodiesAreTheFlatInvalidJson() {
        for (var body : List.of("{not json", "", "[1,2]", "\"every 1h\"", "null", "42"))
            assertFlat(preview(body), 400, "Invalid JSON in request body");
        assertFlat(f.call("POST", PATH, null), 400, "Invalid JSON in request body");
    }

    @Test
    void nothingIsStored() throws Exception {
        ok("{\"schedule\":\"every 1m\"}");
        ok("{\"schedule\":\"2026-01-15T09:00:30Z\"}");
        var list = f.admin.get("/api/jobs?include_disabled=true");
        assertEquals("{\"jobs\":[]}", list.body());
        f.clock.advance(Duration.ofMinutes(5));
        f.pass();
        assertEquals(0, f.upstream.chatRequests().size(), "no firing, no model call");
    }

    @Test
    void aNamedKeyPreviewsTooAndAKeyWithoutTheJobsFamilyGetsTheUnknownRoute() throws Exception {
        var alice = f.as("alice");
        var answer = alice.post(PATH, "{\"schedule\":\"every 1h\",\"count\":2}");
        assertEquals(200, answer.status(), answer.body());
        assertEquals(2, answer.json().path("next_runs").size());

        var runsOnly = f.admin.withKey(f.host.addKey("runs-only", "runs"));
        var refused = runsOnly.post(PATH, "{\"schedule\":\"every 1h\"}");
        assertEquals(404, refused.status(), refused.body());
        assertEquals("not_found", refused.error().path("code").asText(), refused.body());
    }

    @Test
    void withoutTheKeyOrWithAWrongOneIts401() {
        for (var client : List.of(f.admin.withoutKey(), f.admin.withKey("wrong-key"))) {
            var answer = client.post(PATH, "{\"schedule\":\"every 1h\"}");
            assertEquals(401, answer.status(), answer.body());
            assertEquals("gateway_auth_failed", answer.error().path("code").asText(), answer.body());
            assertEquals("gateway_auth_error", answer.error().path("type").asText(), answer.body());
        }
    }

    @Test
    void getOnThePreviewPathIsTheJobRouteWithAnInvalidId() {
        assertFlat(f.call("GET", PATH, null), 400, "Invalid job ID format");
    }

    @Test
    void capabilitiesListTheRouteAsJobPreview() {
        try (var withCaps = JobsHost.start(b -> b.plugins("endpoint-capabilities"))) {
            var caps = withCaps.admin.get("/v1/capabilities");
            assertEquals(200, caps.status(), caps.body());
            assertEquals("{\"method\":\"POST\",\"path\":\"/api/jobs/preview\"}",
                    caps.json().path("endpoints").path("job_preview").toString());
        }
    }

    @Test
    void anOversizedBodyIsTheHosts413() {
        try (var small = JobsHost.start(b -> b.env("CADUCEUS__SERVER__MAX_BODY_BYTES", "1024"))) {
            var answer = small.call("POST", PATH, "{\"schedule\":\"every 1h\",\"pad\":\"" + "x".repeat(4000) + "\"}");
            assertEquals(413, answer.status(), answer.body());
            assertEquals("body_too_large", answer.error().path("code").asText(), answer.body());
            assertEquals(200, small.call("POST", PATH, "{\"schedule\":\"every 1h\"}").status());
        }
    }
}
