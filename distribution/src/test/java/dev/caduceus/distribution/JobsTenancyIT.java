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
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs as tenants' own on the assembled server (issue 21): key {@code alice}'s job is 404
 * {@code Job not found} on every route for key {@code bob} and absent from his list, visible to the
 * admin key (also with {@code ?owner=alice}); its firing is a run owned by alice, which bob cannot see.
 */
class JobsTenancyIT {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir static Path home;
    static ScriptedUpstream upstream;
    static Caduceus server;
    static String alice;
    static String bob;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        upstream.setDefault(Turn.text("alice's report"));
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
        server = Caduceus.serve(home, env);
        alice = Caduceus.addNamedKey(home, "alice");
        bob = Caduceus.addNamedKey(home, "bob");
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    static HttpResponse<String> send(String key, String method, String path, String body) throws Exception {
        var headers = new HashMap<String, String>(Map.of("Authorization", "Bearer " + key));
        if (body != null) headers.put("Content-Type", "application/json");
        return server.send(method, path, body, headers);
    }

    static JsonNode json(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }

    @Test
    void aTenantsJobAndItsRunsAreInvisibleToAnotherTenantAndVisibleToTheAdmin() throws Exception {
        var created = send(alice, "POST", "/api/jobs", "{\"name\":\"alice-job\",\"schedule\":\"every 1h\",\"prompt\":\"report\"}");
        assertEquals(201, created.statusCode(), created.body());
        var id = json(created).path("job").path("id").asText();
        assertEquals("alice", json(created).path("job").path("owner").asText());

        String[][] routes = {{"GET", ""}, {"PATCH", ""}, {"POST", "/pause"}, {"POST", "/resume"}, {"POST", "/run"},
                {"GET", "/runs"}, {"DELETE", ""}};
        for (var route : routes) {
            var body = route[0].equals("PATCH") ? "{\"name\":\"bob was here\"}" : route[0].equals("POST") ? "{}" : null;
            var other = send(bob, route[0], "/api/jobs/" + id + route[1], body);
            assertEquals(404, other.statusCode(), route[0] + " " + route[1] + ": " + other.body());
            assertEquals("{\"error\":\"Job not found\"}", other.body());
        }
        assertFalse(send(bob, "GET", "/api/jobs", null).body().contains(id), "not in another tenant's list");
        assertTrue(send(alice, "GET", "/api/jobs", null).body().contains(id));
        assertTrue(send(Caduceus.TEST_KEY, "GET", "/api/jobs", null).body().contains(id));
        assertTrue(send(Caduceus.TEST_KEY, "GET", "/api/jobs?owner=alice", null).body().contains(id));
        assertFalse(send(Caduceus.TEST_KEY, "GET", "/api/jobs?owner=bob", null).body().contains(id));
        var mine = json(send(alice, "GET", "/api/jobs/" + id, null)).path("job");
        assertEquals("alice-job", mine.path("name").asText(), "bob's PATCH changed nothing");
        assertTrue(mine.path("enabled").asBoolean(), "bob's pause changed nothing");

        assertEquals(200, send(alice, "POST", "/api/jobs/" + id + "/run", "{}").statusCode());
        var run = awaitCompletedRun(id);
        var runId = run.path("run_id").asText();
        var record = send(Caduceus.TEST_KEY, "GET", "/v1/runs/" + runId, null);
        assertEquals(200, record.statusCode(), record.body());
        assertEquals("alice", json(record).path("owner").asText(), "the job's run belongs to its owner");
        assertEquals(200, send(alice, "GET", "/v1/runs/" + runId, null).statusCode());
        assertEquals(404, send(bob, "GET", "/v1/runs/" + runId, null).statusCode());
        assertFalse(send(bob, "GET", "/v1/runs?job_id=" + id, null).body().contains(runId));
        var history = send(Caduceus.TEST_KEY, "GET", "/api/jobs/" + id + "/runs", null);
        assertTrue(history.body().contains(runId), history.body());

        assertEquals(200, send(Caduceus.TEST_KEY, "DELETE", "/api/jobs/" + id, null).statusCode());
        assertEquals(404, send(alice, "GET", "/api/jobs/" + id, null).statusCode());
    }

    /** Alice's view of the job's history until its first run is completed (15 s deadline). */
    static JsonNode awaitCompletedRun(String id) throws Exception {
        return Eventually.await(Duration.ofSeconds(15), "job " + id + " has one completed run",
                () -> json(send(alice, "GET", "/api/jobs/" + id + "/runs", null)).path("runs"),
                runs -> runs.size() == 1 && "completed".equals(runs.get(0).path("status").asText())).get(0);
    }
}
