package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Named keys on the assembled server: {@code caduceus key add} while it runs takes effect at the
 * next request, with its policy (families, model name, requests per minute); {@code key list}
 * never shows a key; {@code key revoke} stops it at the next request; bad input exits 2.
 */
class NamedKeysIT {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir static Path home;
    static ScriptedUpstream upstream;
    static Caduceus server;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        server = Caduceus.serve(home, Caduceus.upstreamEnv(upstream));
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    /** Runs {@code caduceus key ARGS} on the server's state directory; returns the process, exited. */
    private static Caduceus key(String... args) throws Exception {
        var all = new String[args.length + 1];
        all[0] = "key";
        System.arraycopy(args, 0, all, 1, args.length);
        var process = Caduceus.launch(home, Map.of(), all);
        process.awaitExit();
        return process;
    }

    /** {@code key add ARGS...}: {@code args[0]} is "add". */
    private static String add(String... args) throws Exception {
        return Caduceus.addNamedKey(home, java.util.Arrays.copyOfRange(args, 1, args.length));
    }

    private static HttpResponse<String> get(String path, String key) throws Exception {
        return server.get(path, Map.of("Authorization", "Bearer " + key));
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }

    @Test
    void aKeyAddedWhileTheServerRunsWorksAtOnceWithItsPolicy() throws Exception {
        var ci = add("add", "ci", "--families", "chat,models,capabilities", "--model-name", "ci-model");
        var models = get("/v1/models", ci);
        assertEquals(200, models.statusCode(), models.body());
        assertEquals("ci-model", json(models).at("/data/0/id").asText());
        assertEquals("hermes-agent", json(get("/v1/models", Caduceus.TEST_KEY)).at("/data/0/id").asText());

        var runs = get("/v1/runs", ci);
        assertEquals(404, runs.statusCode(), "a family outside the key's policy does not exist for it");
        assertEquals("not_found", json(runs).at("/error/code").asText());
        assertEquals(200, get("/v1/runs", Caduceus.TEST_KEY).statusCode());
        var features = json(get("/v1/capabilities", ci)).path("features");
        assertTrue(features.path("chat_completions").asBoolean(), features.toString());
        assertFalse(features.path("run_submission").asBoolean(), features.toString());
        assertTrue(json(get("/v1/capabilities", Caduceus.TEST_KEY)).at("/features/run_submission").asBoolean());

        var own = json(get("/health/detailed", ci)).path("keys");
        assertTrue(own.path("ci").path("requests").asInt() > 0, own.toString());
        assertFalse(own.has("admin"), "a tenant sees only its own counts: " + own);
        assertTrue(json(get("/health/detailed", Caduceus.TEST_KEY)).path("keys").has("ci"));

        try (var list = key("list")) {
            assertEquals(0, list.process.exitValue(), list.stderr());
            assertTrue(list.stdout().lines().anyMatch(l -> l.startsWith("ci ") && l.contains("model=ci-model")),
                    list.stdout());
            assertFalse(list.stdout().contains(ci.substring(21)), "never the key");
        }
    }

    @Test
    void overItsRequestsPerMinuteAKeyGets429WithRetryAfter() throws Exception {
        var limited = add("add", "limited", "--rpm", "2");
        assertEquals(200, get("/v1/models", limited).statusCode());
        assertEquals(200, get("/v1/models", limited).statusCode());
        var third = get("/v1/models", limited);
        assertEquals(429, third.statusCode(), third.body());
        assertEquals("rate_limit_exceeded", json(third).at("/error/code").asText());
        assertTrue(Integer.parseInt(third.headers().firstValue("Retry-After").orElse("0")) >= 1, third.headers().toString());
        assertEquals(200, get("/v1/models", Caduceus.TEST_KEY).statusCode(), "the admin key is not limited");
    }

    @Test
    void aKeysToolsetsAreAllItsTurnsOfferAndItsOwnCapAnswers429() throws Exception {
        var narrow = add("add", "narrow", "--toolsets", "memory", "--max-concurrent-runs", "1");
        var headers = new java.util.HashMap<>(Map.of("Authorization", "Bearer " + narrow, "Content-Type", "application/json"));
        int before = upstream.chatRequests().size();
        upstream.enqueue(dev.caduceus.platform.testkit.Turn.text("hello"));
        var chat = server.send("POST", "/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", headers);
        assertEquals(200, chat.statusCode(), chat.body());
        var offered = new java.util.ArrayList<String>();
        upstream.chatRequests().get(before).body().path("tools").forEach(t -> offered.add(t.at("/function/name").asText()));
        assertEquals(java.util.List.of("memory"), offered, "only the key's toolsets");

        var held = new dev.caduceus.platform.testkit.HeldTurn(dev.caduceus.platform.testkit.Turn.text("slow"));
        upstream.enqueue(held);
        var slow = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return server.send("POST", "/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"slow\"}]}", headers);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        held.awaitArrival(); // the slow turn is at the model
        var second = server.send("POST", "/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"more\"}]}", headers);
        assertEquals(429, second.statusCode(), second.body());
        assertTrue(json(second).at("/error/message").asText().contains("'narrow'"), second.body());
        assertTrue(second.headers().firstValue("Retry-After").isPresent());
        held.release();
        assertEquals(200, slow.get().statusCode());
    }

    @Test
    void aRevokedKeyIsRefusedAtItsNextRequest() throws Exception {
        var temp = add("add", "temp");
        assertEquals(200, get("/v1/models", temp).statusCode());
        try (var revoke = key("revoke", "temp")) {
            assertEquals(0, revoke.process.exitValue(), revoke.stderr());
        }
        var refused = get("/v1/models", temp);
        assertEquals(401, refused.statusCode(), refused.body());
        assertEquals("gateway_auth_failed", json(refused).at("/error/code").asText());
        assertEquals(401, get("/v1/models", "cdk_0123456789abcdef_" + "A".repeat(43)).statusCode());
    }

    @Test
    void badKeyCommandsExitTwoWithAClearMessage() throws Exception {
        add("add", "dup");
        Map<String[], String> cases = Map.of(
                new String[] {"add", "dup"}, "exists already",
                new String[] {"add", "admin"}, "reserved",
                new String[] {"add", "Not Valid"}, "is not a key name",
                new String[] {"add", "x", "--rpm", "zero"}, "--rpm",
                new String[] {"add", "y", "--families", "chat,,runs"}, "--families",
                new String[] {"revoke", "nobody"}, "no key named 'nobody'",
                new String[] {"add", "z", "--max-concurrent-runs", "0"}, "--max-concurrent-runs",
                new String[] {"add", "w", "--toolsets", "web,Bad Name"}, "--toolsets",
                new String[] {"add", "v", "--max-file-bytes", "lots"}, "--max-file-bytes: 'lots' is not a size");
        for (var c : cases.entrySet()) {
            try (var process = key(c.getKey())) {
                assertEquals(2, process.process.exitValue(), String.join(" ", c.getKey()) + ": " + process.stderr());
                assertTrue(process.stderr().contains(c.getValue()), process.stderr());
                assertFalse(process.stderr().contains("\tat "), "no stack trace: " + process.stderr());
            }
        }
        assertTrue(Files.exists(home.resolve("caduceus.db")));
    }
}
