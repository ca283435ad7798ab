package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Named keys as tenants on the assembled server: what key {@code alice} creates (runs and their
 * events, approvals, steering and stop; chat sessions; memory) is invisible and unmodifiable with
 * key {@code bob} (404, as for an unknown id; absent from lists) and visible to the admin key.
 */
class TenancyIT {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir static Path home;
    static ScriptedUpstream upstream;
    static Caduceus server;
    static String alice;
    static String bob;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        server = Caduceus.serve(home, Caduceus.upstreamEnv(upstream));
        alice = Caduceus.addNamedKey(home, "alice");
        bob = Caduceus.addNamedKey(home, "bob");
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    @BeforeEach
    void noLeftoverTurns() {
        upstream.setDefault(Turn.text("ok"));
    }

    static Map<String, String> auth(String key) {
        var headers = new HashMap<String, String>();
        headers.put("Authorization", "Bearer " + key);
        headers.put("Content-Type", "application/json");
        return headers;
    }

    static HttpResponse<String> send(String key, String method, String path, String body) throws Exception {
        return server.send(method, path, body, auth(key));
    }

    static JsonNode json(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }

    static void awaitTerminal(String key, String runId) throws Exception {
        Eventually.await(Duration.ofSeconds(15), "run " + runId + " ends",
                () -> json(send(key, "GET", "/v1/runs/" + runId, null)).path("status").asText(),
                status -> status.equals("completed") || status.equals("failed") || status.equals("cancelled"));
    }

    @Test
    void aTenantsRunIsInvisibleAndUntouchableForAnotherAndVisibleToTheAdmin() throws Exception {
        var submitted = send(alice, "POST", "/v1/runs", "{\"input\":\"alice's run\"}");
        assertEquals(202, submitted.statusCode(), submitted.body());
        var id = json(submitted).path("run_id").asText();
        awaitTerminal(alice, id);

        for (var path : new String[] {"/v1/runs/" + id, "/v1/runs/" + id + "/events"}) {
            var other = send(bob, "GET", path, null);
            assertEquals(404, other.statusCode(), path + ": " + other.body());
            assertEquals("run_not_found", json(other).at("/error/code").asText());
        }
        for (var action : new String[] {"stop", "approval", "steer"}) {
            var other = send(bob, "POST", "/v1/runs/" + id + "/" + action, "{\"choice\":\"once\",\"input\":\"x\"}");
            assertEquals(404, other.statusCode(), action + ": " + other.body());
        }
        assertFalse(send(bob, "GET", "/v1/runs", null).body().contains(id), "not in another tenant's list");
        assertTrue(send(alice, "GET", "/v1/runs", null).body().contains(id));
        var asAdmin = send(Caduceus.TEST_KEY, "GET", "/v1/runs/" + id, null);
        assertEquals(200, asAdmin.statusCode());
        assertEquals("alice", json(asAdmin).path("owner").asText());
        assertTrue(send(Caduceus.TEST_KEY, "GET", "/v1/runs?owner=alice", null).body().contains(id));
        assertFalse(send(Caduceus.TEST_KEY, "GET", "/v1/runs?owner=bob", null).body().contains(id));
        assertEquals(200, send(Caduceus.TEST_KEY, "GET", "/v1/runs/" + id + "/events", null).statusCode());
    }

    @Test
    void theSameIdempotencyKeyFromTwoTenantsIsTwoRuns() throws Exception {
        var headersA = auth(alice);
        headersA.put("Idempotency-Key", "same-key-1");
        var headersB = auth(bob);
        headersB.put("Idempotency-Key", "same-key-1");
        var a = server.send("POST", "/v1/runs", "{\"input\":\"one\"}", headersA);
        var b = server.send("POST", "/v1/runs", "{\"input\":\"one\"}", headersB);
        assertEquals(202, a.statusCode(), a.body());
        assertEquals(202, b.statusCode(), b.body());
        assertNotEquals(json(a).path("run_id").asText(), json(b).path("run_id").asText());
        assertFalse(json(b).path("replayed").asBoolean(), "never a replay of another tenant's run");
        var again = server.send("POST", "/v1/runs", "{\"input\":\"one\"}", headersA);
        assertEquals(json(a).path("run_id").asText(), json(again).path("run_id").asText(), "its own key still replays");
    }

    @Test
    void aChatIdempotencyKeyNeverReplaysAnotherTenantsAnswer() throws Exception {
        upstream.enqueue(Turn.text("alice's answer: quartz-314"), Turn.text("bob's own answer"));
        var headersA = auth(alice);
        headersA.put("Idempotency-Key", "chat-key-1");
        var headersB = auth(bob);
        headersB.put("Idempotency-Key", "chat-key-1");
        var body = "{\"messages\":[{\"role\":\"user\",\"content\":\"same question\"}]}";
        assertTrue(server.send("POST", "/v1/chat/completions", body, headersA).body().contains("quartz-314"));
        var b = server.send("POST", "/v1/chat/completions", body, headersB);
        assertEquals(200, b.statusCode(), b.body());
        assertFalse(b.body().contains("quartz-314"), "bob gets his own answer: " + b.body());
        assertTrue(server.send("POST", "/v1/chat/completions", body, headersA).body().contains("quartz-314"),
                "alice's own key still replays");
    }

    @Test
    void aChatSessionIdNamesAnotherSessionForAnotherTenant() throws Exception {
        var headersA = auth(alice);
        headersA.put("X-Hermes-Session-Id", "shared-session");
        var first = server.send("POST", "/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"the password is alice-only-42\"}]}", headersA);
        assertEquals(200, first.statusCode(), first.body());
        var headersB = auth(bob);
        headersB.put("X-Hermes-Session-Id", "shared-session");
        int before = upstream.chatRequests().size();
        var second = server.send("POST", "/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"what was the password?\"}]}", headersB);
        assertEquals(200, second.statusCode(), second.body());
        var sent = upstream.chatRequests().get(before).body().toString();
        assertFalse(sent.contains("alice-only-42"), "bob's turn carries nothing of alice's session: " + sent);
        int again = upstream.chatRequests().size();
        server.send("POST", "/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"and again?\"}]}", headersA);
        assertTrue(upstream.chatRequests().get(again).body().toString().contains("alice-only-42"),
                "alice's own session continues");
    }

    @Test
    void memoryWithTheSameSessionKeyIsEachTenantsOwn() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_m", "memory",
                "{\"action\":\"add\",\"target\":\"memory\",\"content\":\"alice prefers tea-7731\"}")), Turn.text("noted"));
        var headersA = auth(alice);
        headersA.put("X-Hermes-Session-Key", "team-scope");
        var stored = server.send("POST", "/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"remember: tea\"}]}", headersA);
        assertEquals(200, stored.statusCode(), stored.body());
        var headersB = auth(bob);
        headersB.put("X-Hermes-Session-Key", "team-scope");
        int before = upstream.chatRequests().size();
        server.send("POST", "/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"what do I like?\"}]}",
                headersB);
        assertFalse(upstream.chatRequests().get(before).body().toString().contains("tea-7731"),
                "bob's system prompt holds none of alice's memory");
        int mine = upstream.chatRequests().size();
        server.send("POST", "/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"what do I like?\"}]}",
                headersA);
        assertTrue(upstream.chatRequests().get(mine).body().toString().contains("tea-7731"), "alice's own memory");
    }

    @Test
    void aTenantsStoredResponseAndConversationAreItsOwn() throws Exception {
        var created = send(alice, "POST", "/v1/responses", "{\"input\":\"alice's note: cedar-5512\",\"store\":true}");
        assertEquals(200, created.statusCode(), created.body());
        var id = json(created).path("id").asText();
        for (var path : new String[] {"/v1/responses/" + id, "/v1/responses/" + id + "/input_items"}) {
            assertEquals(404, send(bob, "GET", path, null).statusCode(), path);
            assertEquals(200, send(alice, "GET", path, null).statusCode(), path);
            assertEquals(200, send(Caduceus.TEST_KEY, "GET", path, null).statusCode(), path);
        }
        var unknown = send(bob, "POST", "/v1/responses", "{\"input\":\"go on\",\"previous_response_id\":\"resp_doesnotexist\"}");
        var chained = send(bob, "POST", "/v1/responses", "{\"input\":\"go on\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals(unknown.statusCode(), chained.statusCode(), "another key's response is an unknown one: " + chained.body());
        assertEquals(json(unknown).at("/error/code").asText(), json(chained).at("/error/code").asText());
        assertEquals(404, send(bob, "DELETE", "/v1/responses/" + id, null).statusCode());
        assertEquals(200, send(alice, "GET", "/v1/responses/" + id, null).statusCode(), "bob's delete did nothing");

        assertEquals(200, send(alice, "POST", "/v1/responses",
                "{\"input\":\"remember birch-9090\",\"conversation\":\"project\"}").statusCode());
        int before = upstream.chatRequests().size();
        assertEquals(200, send(bob, "POST", "/v1/responses",
                "{\"input\":\"what did I say?\",\"conversation\":\"project\"}").statusCode());
        assertFalse(upstream.chatRequests().get(before).body().toString().contains("birch-9090"),
                "a conversation name is per key");
    }

    @Test
    void aRevokedKeysJobsNoLongerStartRuns() throws Exception {
        var carol = Caduceus.addNamedKey(home, "carol");
        var created = send(carol, "POST", "/api/jobs", "{\"name\":\"carol-job\",\"schedule\":\"every 1h\",\"prompt\":\"x\"}");
        assertEquals(201, created.statusCode(), created.body());
        var id = json(created).at("/job/id").asText();
        try (var revoke = Caduceus.launch(home, Map.of(), "key", "revoke", "carol")) {
            assertEquals(0, revoke.awaitExit(), revoke.stderr());
        }
        assertEquals(200, send(Caduceus.TEST_KEY, "POST", "/api/jobs/" + id + "/run", "").statusCode());
        var job = Eventually.await(Duration.ofSeconds(15), "the firing was settled",
                () -> json(send(Caduceus.TEST_KEY, "GET", "/api/jobs/" + id, null)).path("job"),
                j -> j.path("last_error").isTextual());
        assertTrue(job.path("last_error").asText().contains("revoked"), job.toString());
        assertEquals(0, json(send(Caduceus.TEST_KEY, "GET", "/v1/runs?owner=carol", null)).path("data").size(),
                "no run started for the revoked key");
    }
}
