package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.FrontendFixtures;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Front-ends' housekeeping requests through the assembled server and the real provider plugin
 * against the scripted upstream: every request of the front-end fixtures (Open WebUI 0.9.5 as
 * recorded, Open WebUI's current templates, LibreChat, LobeChat, near misses) is replayed, and what
 * reaches the upstream shows which were answered by one plain call and which ran as agent turns.
 */
class HousekeepingEndToEndIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String IDENTITY = "You are Caduceus, a capable AI agent.";

    @TempDir static Path home;
    static ScriptedUpstream upstream;
    static Caduceus server;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__MODEL__HOUSEKEEPING_MODEL", "cheap-model");
        env.put("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "1");
        server = Caduceus.serve(home, env);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    @BeforeEach
    void clearScript() {
        upstream.setDefault(Turn.error(500, "no turn scripted for this request"));
    }

    @Test
    void everyFixtureRequestReachesTheUpstreamAsItsKindSays() throws Exception {
        int housekeeping = 0;
        for (var line : FrontendFixtures.all()) {
            var what = line.path("client").asText() + " " + line.path("kind").asText();
            var body = line.path("body");
            awaitIdle(); // max_concurrent_runs is 1: the previous turn's slot is released first
            upstream.enqueue(Turn.text("{\"title\": \"Ok\"}"));
            int before = upstream.chatRequests().size();
            var response = post(body.toString(), line.path("headers"));
            assertEquals(200, response.statusCode(), what + ": " + response.body());
            assertEquals(before + 1, upstream.chatRequests().size(), what + ": exactly one model call");
            if (body.path("stream").asBoolean()) assertTrue(response.body().contains("data: [DONE]"), what);
            else assertEquals("chat.completion", JSON.readTree(response.body()).path("object").asText(), what);
            var sent = upstream.chatRequests().getLast().body();
            var messages = sent.path("messages");
            if (FrontendFixtures.housekeeping(line)) {
                housekeeping++;
                assertEquals("true", response.headers().firstValue("X-Hermes-Housekeeping").orElse(null), what);
                assertTrue(response.headers().firstValue("X-Hermes-Session-Id").isEmpty(), what + ": no session");
                assertFalse(sent.has("tools"), what + ": no tools " + sent);
                assertFalse(messages.toString().contains(IDENTITY), what + ": no identity prompt");
                assertEquals("cheap-model", sent.path("model").asText(), what);
                assertEquals(body.path("messages"), messages, what + ": the client's messages as sent");
            } else {
                assertTrue(response.headers().firstValue("X-Hermes-Housekeeping").isEmpty(), what);
                assertTrue(sent.path("tools").isArray() && !sent.path("tools").isEmpty(), what + ": an agent turn with tools");
                assertEquals("system", messages.get(0).path("role").asText(), what);
                assertTrue(messages.get(0).path("content").asText().startsWith(IDENTITY), what + ": the identity prompt");
                assertEquals("scripted-model", sent.path("model").asText(), what);
                var userMessages = body.path("messages");
                assertEquals(userMessages.get(userMessages.size() - 1).path("content"),
                        messages.get(messages.size() - 1).path("content"), what + ": the user's message is the turn");
            }
        }
        assertEquals(FrontendFixtures.all().stream().filter(FrontendFixtures::housekeeping).count(), housekeeping);
        assertTrue(housekeeping >= 15, "every front-end's housekeeping fixtures were replayed: " + housekeeping);
    }

    @Test
    void housekeepingTakesNoConcurrencySlot() throws Exception {
        awaitIdle();
        var slow = new HeldTurn(Turn.textChunks("one ", "two ", "three ", "four ", "five ", "six"));
        upstream.enqueue(slow);
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        var busy = CompletableFuture.supplyAsync(() -> {
            try {
                return server.send("POST", "/v1/chat/completions",
                        "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"count slowly\"}]}", headers);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        slow.awaitArrival(); // the slot is taken and the slow turn is held at the model
        upstream.enqueue(Turn.text("{\"tags\": [\"General\"]}"));
        var tags = FrontendFixtures.load("open-webui-0.9.5.jsonl").get(3);
        var answered = post(tags.path("body").toString(), tags.path("headers"));
        assertEquals(200, answered.statusCode(), answered.body());
        assertEquals("{\"tags\": [\"General\"]}",
                JSON.readTree(answered.body()).path("choices").get(0).path("message").path("content").asText());
        var refused = post("{\"messages\":[{\"role\":\"user\",\"content\":\"and me?\"}]}", JSON.createObjectNode());
        assertEquals(429, refused.statusCode(), "an ordinary turn still meets the cap: " + refused.body());
        slow.release();
        assertEquals(200, busy.get().statusCode());
    }

    private static HttpResponse<String> post(String body, JsonNode fixtureHeaders) throws Exception {
        var headers = new HashMap<String, String>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        fixtureHeaders.fields().forEachRemaining(h -> {
            if (h.getKey().equalsIgnoreCase("user-agent")) headers.put("User-Agent", h.getValue().asText());
        });
        return server.send("POST", "/v1/chat/completions", body, headers);
    }

    private static int activeAgents() throws Exception {
        return JSON.readTree(server.get("/health/detailed", Caduceus.KEY_AUTH).body()).path("active_agents").asInt();
    }

    private static void awaitIdle() throws Exception {
        Eventually.await(Duration.ofSeconds(10), "no run is active", () -> activeAgents() == 0);
    }
}
