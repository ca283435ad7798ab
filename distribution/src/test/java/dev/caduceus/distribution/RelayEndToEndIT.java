package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proxy mode end to end: two real instances. The back runs the agent (scripted
 * upstream, the third-party calc tool); the front has the relay plugin selected by
 * {@code GATEWAY_PROXY_URL}, its own key and stores, and no model settings. Chat, Responses and runs
 * are all exercised through the front.
 */
class RelayEndToEndIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String FRONT_KEY = "the-front-key-is-long-enough-too";
    static final Map<String, String> FRONT_AUTH = Map.of("Authorization", "Bearer " + FRONT_KEY);

    @TempDir static Path tmp;
    static ScriptedUpstream upstream;
    static Caduceus back;
    static Caduceus front;
    static URI frontBase;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        var backHome = Files.createDirectories(tmp.resolve("back"));
        ThirdPartyPlugins.calc(backHome.resolve("plugins"));
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
        env.put("CADUCEUS__AGENT__TOOLSETS", "hermes-api-server,calc");
        back = Caduceus.serve(backHome, env);
        front = Caduceus.serve(Files.createDirectories(tmp.resolve("front")), frontEnv(Caduceus.TEST_KEY));
        frontBase = front.awaitListening();
    }

    static Map<String, String> frontEnv(String proxyKey) throws Exception {
        var env = new HashMap<String, String>();
        env.put("API_SERVER_KEY", FRONT_KEY);
        env.put("GATEWAY_PROXY_URL", back.awaitListening().toString());
        env.put("GATEWAY_PROXY_KEY", proxyKey);
        return env;
    }

    @AfterAll
    static void stop() throws Exception {
        if (front != null) front.close();
        if (back != null) back.close();
        if (upstream != null) upstream.close();
    }

    @BeforeEach
    void idle() throws Exception {
        upstream.setDefault(Turn.error(500, "no turn scripted for this request"));
        awaitIdle(back, Caduceus.KEY_AUTH, 10_000);
        awaitIdle(front, FRONT_AUTH, 10_000);
    }

    static void awaitIdle(Caduceus server, Map<String, String> auth, long millis) throws Exception {
        Eventually.await(Duration.ofMillis(millis), "no run is active",
                () -> JSON.readTree(server.get("/health/detailed", auth).body()).path("active_agents").asInt() == 0);
    }

    @Test
    void chatThroughTheFrontRunsTheToolOnTheBack() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "add", "{\"a\":2,\"b\":40}")), Turn.text("It is 42.").usage(20, 7));
        var response = post("/v1/chat/completions",
                "{\"model\":\"hermes-agent\",\"messages\":[{\"role\":\"system\",\"content\":\"Be exact.\"},{\"role\":\"user\",\"content\":\"What is 2+40?\"}]}",
                Map.of("X-Hermes-Session-Key", "user-7"));
        assertEquals(200, response.statusCode(), response.body());
        var body = JSON.readTree(response.body());
        assertEquals("It is 42.", body.path("choices").get(0).path("message").path("content").asText());
        assertEquals("stop", body.path("choices").get(0).path("finish_reason").asText());
        assertTrue(body.path("usage").path("total_tokens").asInt() > 0, body.toString());
        assertTrue(response.headers().firstValue("X-Hermes-Session-Id").isPresent(), "the front's own session id");
        // the back's agent ran the real tool and got the caller's system prompt
        var second = upstream.chatRequests().getLast().body().path("messages");
        assertEquals("{\"sum\": 42}", second.get(second.size() - 1).path("content").asText());
        assertTrue(upstream.chatRequests().getLast().body().path("messages").get(0).path("content").asText().contains("Be exact."));
    }

    @Test
    void streamingChatShowsTheBacksToolProgressOnTheFront() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_7", "add", "{\"a\":1,\"b\":1}")), Turn.textChunks("The ", "answer ", "is 2."));
        var lines = streamLines("{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"1+1?\"}]}",
                Map.of("X-Hermes-Tool-Progress", "true"));
        var text = String.join("\n", lines);
        assertTrue(lines.contains("event: hermes.tool.progress"), text);
        var progress = lines.stream().filter(l -> l.startsWith("data: {\"tool\"")).toList();
        assertEquals(2, progress.size(), text);
        var running = JSON.readTree(progress.get(0).substring(6));
        assertEquals("add", running.path("tool").asText());
        assertEquals("call_7", running.path("toolCallId").asText());
        assertEquals("running", running.path("status").asText());
        assertTrue(running.path("label").asText().startsWith("add"), running.toString());
        assertEquals("completed", JSON.readTree(progress.get(1).substring(6)).path("status").asText());
        var content = new StringBuilder();
        for (var l : lines) {
            if (!l.startsWith("data: {\"id\"")) continue;
            var chunk = JSON.readTree(l.substring(6));
            if (chunk.path("choices").size() > 0) content.append(chunk.path("choices").get(0).path("delta").path("content").asText(""));
        }
        assertEquals("The answer is 2.", content.toString());
        assertEquals("data: [DONE]", lines.stream().filter(l -> !l.isEmpty()).reduce((a, b) -> b).orElseThrow());

        // without the opt-in header the front's default policy applies: comments, not named events
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_8", "add", "{\"a\":1,\"b\":2}")), Turn.text("3"));
        var plain = streamLines("{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"1+2?\"}]}", Map.of());
        assertFalse(plain.contains("event: hermes.tool.progress"));
        assertTrue(plain.stream().anyMatch(l -> l.startsWith(": hermes.tool.progress ") && l.contains("call_8")), String.join("\n", plain));
    }

    @Test
    void responsesChainOverThreeTurnsWithHistoryKeptOnTheFront() throws Exception {
        upstream.enqueue(Turn.text("A1"), Turn.text("A2"), Turn.text("A3"));
        String previous = null;
        for (int i = 1; i <= 3; i++) {
            var body = JSON.createObjectNode().put("input", "Q" + i).put("instructions", "Answer tersely.");
            if (previous != null) body.put("previous_response_id", previous);
            var response = post("/v1/responses", body.toString(), Map.of());
            assertEquals(200, response.statusCode(), response.body());
            var json = JSON.readTree(response.body());
            assertEquals("completed", json.path("status").asText(), json.toString());
            assertEquals("A" + i, json.path("output_text").isMissingNode()
                    ? json.path("output").findValuesAsText("text").getLast() : json.path("output_text").asText());
            previous = json.path("id").asText();
        }
        // the third turn reached the back's model with the whole chain, as the front stored it
        var sent = upstream.chatRequests().getLast().body().path("messages");
        var texts = new ArrayList<String>();
        sent.forEach(m -> { if (!m.path("role").asText().equals("system")) texts.add(m.path("role").asText() + ":" + m.path("content").asText()); });
        assertEquals(List.of("user:Q1", "assistant:A1", "user:Q2", "assistant:A2", "user:Q3"), texts);
        assertTrue(sent.get(0).path("content").asText().contains("Answer tersely."));
    }

    @Test
    void aRunOnTheFrontResumesWithLastEventId() throws Exception {
        var chunks = IntStream.range(0, 15).mapToObj(i -> "w" + i + " ").toArray(String[]::new);
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_r", "add", "{\"a\":3,\"b\":4}")),
                Turn.textChunks(chunks).chunkDelayMillis(40));
        var runId = submit("{\"input\":\"add, then talk\"}");
        List<SseReader.Frame> whole;
        var firstPart = new ArrayList<SseReader.Frame>();
        try (var a = events(runId, Map.of()); var b1 = events(runId, Map.of())) {
            while (firstPart.size() < 4) firstPart.add(b1.next());
            b1.close();
            whole = new ArrayList<>();
            while (whole.size() < firstPart.size() + 2) whole.add(a.next()); // events happen while b is gone
            List<SseReader.Frame> secondPart;
            try (var b2 = events(runId, Map.of("Last-Event-ID", String.valueOf(firstPart.getLast().id())))) {
                secondPart = b2.rest();
            }
            whole.addAll(a.rest());
            var ids = whole.stream().map(SseReader.Frame::id).toList();
            assertEquals(LongStream.rangeClosed(1, whole.size()).boxed().toList(), ids, "gap-free from 1");
            var joined = new ArrayList<>(firstPart);
            joined.addAll(secondPart);
            assertEquals(ids, joined.stream().map(SseReader.Frame::id).toList(), "the dropped subscriber missed nothing");
        }
        var names = whole.stream().map(f -> f.data().path("event").asText()).toList();
        assertEquals("tool.started", names.get(0), names.toString());
        assertEquals("add", whole.get(0).data().path("tool").asText());
        assertEquals("call_r", whole.get(0).data().path("tool_call_id").asText());
        assertEquals("tool.completed", names.get(1));
        assertEquals(15, names.stream().filter("message.delta"::equals).count());
        assertEquals("run.completed", names.getLast());
        assertEquals(String.join("", chunks), whole.getLast().data().path("output").asText());
        var status = JSON.readTree(front.get("/v1/runs/" + runId, FRONT_AUTH).body());
        assertEquals("completed", status.path("status").asText());
    }

    @Test
    void stopOnTheFrontCancelsTheRemoteCall() throws Exception {
        var chunks = IntStream.range(0, 100).mapToObj(i -> "s" + i + " ").toArray(String[]::new);
        upstream.enqueue(Turn.textChunks(chunks).chunkDelayMillis(100)); // 10 s if nobody stops it
        var runId = submit("{\"input\":\"talk for a long time\"}");
        try (var events = events(runId, Map.of())) {
            var first = events.next();
            assertEquals("message.delta", first.data().path("event").asText());
            assertEquals(200, post("/v1/runs/" + runId + "/stop", "", Map.of()).statusCode());
            var rest = events.rest();
            assertEquals("run.cancelled", rest.getLast().data().path("event").asText(), rest.toString());
            awaitIdle(back, Caduceus.KEY_AUTH, 10_000);
            assertTrue(rest.stream().filter(f -> f.data().path("event").asText().equals("message.delta")).count() < 99,
                    "the back's agent was interrupted too, not played to the end: " + rest.size() + " frames");
        }
        assertTrue(upstream.pending() == 0);
    }

    @Test
    void healthAndCapabilitiesSayProxy() throws Exception {
        var health = JSON.readTree(front.get("/health/detailed", FRONT_AUTH).body());
        var model = health.path("readiness").path("checks").path("model");
        assertEquals("proxy", model.path("mode").asText(), health.toString());
        assertTrue(model.path("reachable").asBoolean(), health.toString());
        var caps = JSON.readTree(front.get("/v1/capabilities", FRONT_AUTH).body());
        assertEquals("proxy", caps.path("runtime").path("mode").asText(), caps.toString());
        assertEquals("remote", caps.path("runtime").path("tool_execution").asText());
        assertEquals(0, caps.path("tools").size(), "tools run remotely: " + caps.path("tools"));
        var backUri = back.awaitListening();
        assertEquals("http://" + backUri.getHost() + ":" + backUri.getPort(), caps.path("relay").path("target").asText(), caps.toString());
    }

    @Test
    void aWrongBackKeyFailsTheRunWithProxyAuthFailed() throws Exception {
        try (var wrong = Caduceus.serve(Files.createDirectories(tmp.resolve("front-wrong")), frontEnv("not-the-back-key-at-all-123"))) {
            var response = wrong.send("POST", "/v1/runs", "{\"input\":\"hi\"}",
                    Map.of("Authorization", "Bearer " + FRONT_KEY, "Content-Type", "application/json"));
            assertEquals(202, response.statusCode(), response.body());
            var runId = JSON.readTree(response.body()).path("run_id").asText();
            var status = Eventually.await(Duration.ofSeconds(10), "run " + runId + " ends",
                    () -> JSON.readTree(wrong.get("/v1/runs/" + runId, FRONT_AUTH).body()),
                    s -> !s.path("status").asText().matches("queued|running"));
            assertEquals("failed", status.path("status").asText(), status.toString());
            assertTrue(status.path("error").asText().contains("401"), status.toString());
            assertFalse(status.path("error").asText().contains("not-the-back-key-at-all-123"), status.toString());
            // chat on that front: a failed non-streaming turn is 502 agent_incomplete
            var chat = wrong.send("POST", "/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                    Map.of("Authorization", "Bearer " + FRONT_KEY, "Content-Type", "application/json"));
            assertEquals(502, chat.statusCode(), chat.body());
            assertFalse(chat.body().contains("not-the-back-key-at-all-123"));
        }
    }

    // ---- helpers ----------------------------------------------------------------------------

    static HttpResponse<String> post(String path, String body, Map<String, String> headers) throws Exception {
        var all = new LinkedHashMap<String, String>(FRONT_AUTH);
        all.put("Content-Type", "application/json");
        all.putAll(headers);
        return front.send("POST", path, body, all);
    }

    static List<String> streamLines(String body, Map<String, String> headers) throws Exception {
        var builder = HttpRequest.newBuilder(frontBase.resolve("/v1/chat/completions")).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        FRONT_AUTH.forEach(builder::header);
        headers.forEach(builder::header);
        var response = HTTP.send(builder.build(), HttpResponse.BodyHandlers.ofLines());
        assertEquals(200, response.statusCode());
        return response.body().toList();
    }

    static String submit(String body) throws Exception {
        var response = post("/v1/runs", body, Map.of());
        assertEquals(202, response.statusCode(), response.body());
        return JSON.readTree(response.body()).path("run_id").asText();
    }

    static SseReader events(String runId, Map<String, String> headers) throws Exception {
        var all = new LinkedHashMap<String, String>(FRONT_AUTH);
        all.putAll(headers);
        return SseReader.open(HTTP, frontBase.resolve("/v1/runs/" + runId + "/events"), all);
    }
}
