package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chat completions end to end: the assembled server, the real provider-openai plugin talking HTTP to
 * a scripted upstream, and a third-party tool plugin compiled at test time.
 */
class ChatEndToEndIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Map<String, String> AUTH = Caduceus.KEY_AUTH;

    @TempDir static Path home;
    static ScriptedUpstream upstream;
    static Caduceus server;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        ThirdPartyPlugins.calc(home.resolve("plugins"));
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__AGENT__TOOLSETS", "hermes-api-server,calc");
        env.put("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "1");
        server = Caduceus.serve(home, env);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    @BeforeEach
    void clearScriptAndWaitForIdle() throws Exception {
        upstream.setDefault(Turn.error(500, "no turn scripted for this request"));
        // max_concurrent_runs is 1: let the previous test's run release its slot first.
        Eventually.await(Duration.ofSeconds(10), "no run is active",
                () -> JSON.readTree(server.get("/health/detailed", AUTH).body()).path("active_agents").asInt() == 0);
    }

    @Test
    void aPlainQuestionGetsAnAnswer() throws Exception {
        upstream.enqueue(Turn.text("Paris is the capital of France.").usage(20, 7));
        var response = chat("{\"model\":\"hermes-agent\",\"messages\":[{\"role\":\"user\",\"content\":\"Capital of France?\"}]}");
        assertEquals(200, response.statusCode(), response.body());
        var body = JSON.readTree(response.body());
        assertEquals("chat.completion", body.path("object").asText());
        assertEquals("Paris is the capital of France.", body.path("choices").get(0).path("message").path("content").asText());
        assertEquals("stop", body.path("choices").get(0).path("finish_reason").asText());
        assertEquals(27, body.path("usage").path("total_tokens").asInt());
        assertTrue(response.headers().firstValue("X-Hermes-Session-Id").orElse("").startsWith("api-"));
        var sent = upstream.chatRequests().getLast().body();
        assertEquals("scripted-model", sent.path("model").asText());
        assertEquals("system", sent.path("messages").get(0).path("role").asText(), "core prompt first");
        assertTrue(sent.path("tools").findValuesAsText("name").contains("add"), "the calc toolset is enabled: " + sent.path("tools"));
    }

    @Test
    void aToolCallRunsTheToolAndTheAnswerUsesItsResult() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "add", "{\"a\":2,\"b\":40}")),
                Turn.text("2 + 40 = 42."));
        var before = upstream.chatRequests().size();
        var response = chat("{\"messages\":[{\"role\":\"user\",\"content\":\"What is 2+40? Use the tool.\"}]}");
        assertEquals(200, response.statusCode(), response.body());
        assertEquals("2 + 40 = 42.", JSON.readTree(response.body()).path("choices").get(0).path("message").path("content").asText());
        var second = upstream.chatRequests().get(before + 1).body().path("messages");
        var tool = second.get(second.size() - 1);
        assertEquals("tool", tool.path("role").asText());
        assertEquals("call_1", tool.path("tool_call_id").asText());
        assertEquals("{\"sum\": 42}", tool.path("content").asText());
    }

    @Test
    void streamingWithAToolCallSendsProgressAsCommentsThenTheAnswerAndDone() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_9", "add", "{\"a\":1,\"b\":2}")),
                Turn.textChunks("The sum ", "is 3."));
        var lines = stream("{\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"1+2?\"}]}", Map.of());
        var content = new StringBuilder();
        var sawProgress = false;
        var chunks = new ArrayList<JsonNode>();
        for (var line : lines) {
            if (line.startsWith(": hermes.tool.progress ")) sawProgress = true;
            if (line.startsWith("data: {")) {
                var chunk = JSON.readTree(line.substring(6));
                chunks.add(chunk);
                var delta = chunk.path("choices").path(0).path("delta").path("content");
                if (delta.isTextual()) content.append(delta.asText());
            }
        }
        assertTrue(sawProgress, String.join("\n", lines));
        assertFalse(lines.stream().anyMatch(l -> l.startsWith("event:")), "no named events unless asked");
        assertEquals("The sum is 3.", content.toString());
        assertEquals("assistant", chunks.getFirst().path("choices").get(0).path("delta").path("role").asText());
        assertEquals("data: [DONE]", lines.stream().filter(l -> l.startsWith("data:")).reduce((a, b) -> b).orElseThrow());
        assertTrue(chunks.getLast().path("choices").isEmpty(), "include_usage adds a usage-only chunk");
    }

    @Test
    void namedToolProgressEventsWhenTheClientOptsIn() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_7", "add", "{\"a\":1,\"b\":1}")), Turn.text("2"));
        var lines = stream("{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"1+1\"}]}",
                Map.of("X-Hermes-Tool-Progress", "true"));
        assertTrue(lines.contains("event: hermes.tool.progress"), String.join("\n", lines));
    }

    @Test
    void anUpstreamAuthFailureIsA502AgentIncomplete() throws Exception {
        upstream.enqueue(Turn.error(401, "invalid api key"));
        var response = chat("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertEquals(502, response.statusCode(), response.body());
        var error = JSON.readTree(response.body()).path("error");
        assertEquals("agent_incomplete", error.path("code").asText());
        assertEquals("Upstream model returned 401: invalid api key", error.path("message").asText());
        assertEquals("false", response.headers().firstValue("x-should-retry").orElse(null));
    }

    @Test
    void badInputGetsContractErrors() throws Exception {
        assertEquals("missing_messages", code(chat("{\"messages\":[]}")));
        assertEquals("invalid_json", code(chat("{\"messages\":")));
        assertEquals("unsupported_content_type", code(chat("{\"messages\":[{\"role\":\"user\",\"content\":"
                + "[{\"type\":\"input_audio\",\"input_audio\":{}}]}]}")));
        assertEquals(401, server.send("POST", "/v1/chat/completions", "{}", Map.of()).statusCode());
    }

    @Test
    void aClientThatDisconnectsMidStreamInterruptsTheRunAndFreesTheSlot() throws Exception {
        upstream.enqueue(Turn.textChunks("one ", "two ", "three ", "four ", "five").chunkDelayMillis(400));
        var uri = server.awaitListening();
        var body = "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"count slowly\"}]}";
        try (var socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                    + Caduceus.TEST_KEY + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                    + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
            var reader = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = reader.readLine()) != null && !line.contains("\"content\"")) { /* until the first text */ }
        } // disconnected after the first content chunk
        // max_concurrent_runs is 1: the next request is admitted once the interrupted run released its slot.
        upstream.enqueue(Turn.text("free again"));
        var next = Eventually.await(Duration.ofSeconds(10), "the slot was released",
                () -> chat("{\"messages\":[{\"role\":\"user\",\"content\":\"are you free?\"}]}"),
                r -> r.statusCode() != 429);
        assertEquals(200, next.statusCode(), "the slot was released: " + next.body());
        var health = JSON.readTree(server.get("/health/detailed", AUTH).body());
        assertEquals(0, health.path("active_agents").asInt(), health.toString());
    }

    private static java.net.http.HttpResponse<String> chat(String body) throws Exception {
        var headers = new HashMap<>(AUTH);
        headers.put("Content-Type", "application/json");
        return server.send("POST", "/v1/chat/completions", body, headers);
    }

    private static List<String> stream(String body, Map<String, String> extra) throws Exception {
        var headers = new HashMap<>(AUTH);
        headers.put("Content-Type", "application/json");
        headers.putAll(extra);
        var response = server.send("POST", "/v1/chat/completions", body, headers);
        assertEquals(200, response.statusCode(), response.body());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
        return response.body().lines().toList();
    }

    private static String code(java.net.http.HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body()).path("error").path("code").asText();
    }
}
