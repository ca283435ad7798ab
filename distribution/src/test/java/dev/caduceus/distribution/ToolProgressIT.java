package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code chat.tool_progress} over the wire: the assembled server configured with {@code reasoning}
 * (through the environment, as an operator would), a scripted upstream calling the calc plugin's
 * tool, and {@code X-Hermes-Tool-Progress} choosing each other mode per request. The default
 * ({@code comments}) is {@link ChatEndToEndIT}'s and the SDK ITs'. The AI SDK's {@code streamText}
 * reads the steps as reasoning parts.
 */
class ToolProgressIT {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir static Path home;
    static ScriptedUpstream upstream;
    static Caduceus server;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        ThirdPartyPlugins.calc(home.resolve("plugins"));
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__AGENT__TOOLSETS", "hermes-api-server,calc");
        env.put("CADUCEUS__CHAT__TOOL_PROGRESS", "reasoning");
        server = Caduceus.serve(home, env);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    private static java.net.http.HttpResponse<String> toolTurn(Map<String, String> extra) throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_7", "add", "{\"a\":1,\"b\":1}")), Turn.text("It is 2."));
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        headers.putAll(extra);
        var response = server.send("POST", "/v1/chat/completions",
                "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"1+1\"}]}", headers);
        assertEquals(200, response.statusCode(), response.body());
        return response;
    }

    private static void awaitIdle() throws Exception {
        Eventually.await(Duration.ofSeconds(10), "no run is active",
                () -> JSON.readTree(server.get("/health/detailed", Caduceus.KEY_AUTH).body()).path("active_agents").asInt() == 0);
    }

    private static List<JsonNode> chunks(String body) throws Exception {
        var chunks = new ArrayList<JsonNode>();
        for (var line : body.lines().toList())
            if (line.startsWith("data: {")) chunks.add(JSON.readTree(line.substring(6)));
        return chunks;
    }

    private static String joined(List<JsonNode> chunks, String field) {
        var sb = new StringBuilder();
        for (var c : chunks) sb.append(c.at("/choices/0/delta/" + field).asText(""));
        return sb.toString();
    }

    @Test
    void reasoningShowsEachToolStepAsReasoningContentAndKeepsContentAndTranscriptClean() throws Exception {
        var response = toolTurn(Map.of());
        var body = response.body();
        var chunks = chunks(body);
        var reasoning = joined(chunks, "reasoning_content");
        assertTrue(reasoning.matches("(?s)\\S+ add(: .*)?\\n✓ \\d+\\.\\d s\\n\\n"), body);
        assertEquals("It is 2.", joined(chunks, "content"));
        assertFalse(body.contains("hermes.tool.progress"), body);

        var session = response.headers().firstValue("X-Hermes-Session-Id").orElseThrow();
        awaitIdle(); // the transcript is written after the terminal event, before the slot is freed
        upstream.enqueue(Turn.text("Still 2."));
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        headers.put("X-Hermes-Session-Id", session);
        var next = server.send("POST", "/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"and again?\"}]}", headers);
        assertEquals(200, next.statusCode(), next.body());
        var sent = upstream.chatRequests().getLast().body().path("messages").toString();
        assertTrue(sent.contains("It is 2."), sent);
        assertFalse(sent.contains("✓"), "the stored transcript has no progress text: " + sent);
    }

    @Test
    void theAiSdksStreamTextReportsTheToolStepsAsReasoningAndTheTextUnchanged() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_9", "add", "{\"a\":1,\"b\":1}")), Turn.text("It is 2."));
        var result = NodeSdk.runAiSdk("ai-sdk-reasoning.mjs", server.awaitListening(), Caduceus.TEST_KEY, server.stderr());
        assertEquals("It is 2.", result.path("text").asText(), result.toString());
        assertEquals("It is 2.", result.path("finalText").asText(), result.toString());
        assertTrue(result.path("reasoning").asText().matches("(?s)\\S+ add(: .*)?\\n✓ \\d+\\.\\d s\\n\\n"),
                result.toString());
        assertTrue(result.path("types").toString().contains("reasoning-delta"), result.toString());
    }

    @Test
    void aResponsesStreamShowsEachToolStepAsAReasoningSummary() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_8", "add", "{\"a\":2,\"b\":3}")), Turn.text("It is 5."));
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        var response = server.send("POST", "/v1/responses", "{\"input\":\"2+3\",\"stream\":true}", headers);
        assertEquals(200, response.statusCode(), response.body());
        var summary = new StringBuilder();
        JsonNode completed = null;
        for (var line : response.body().lines().toList()) {
            if (!line.startsWith("data: ")) continue;
            var data = JSON.readTree(line.substring(6));
            if (data.path("type").asText().equals("response.reasoning_summary_text.delta"))
                summary.append(data.path("delta").asText());
            if (data.path("type").asText().equals("response.completed")) completed = data.path("response");
        }
        assertTrue(summary.toString().matches("(?s)\\S+ add(: .*)?\\n✓ \\d+\\.\\d s\\n\\n"), response.body());
        assertEquals("reasoning", completed.at("/output/0/type").asText(), completed.toString());
        assertEquals("mcp_call", completed.at("/output/1/type").asText(), "the step the server ran (issue 42)");
        assertEquals("It is 5.", completed.at("/output/2/content/0/text").asText(), completed.toString());
    }

    @Test
    void theHeaderChoosesEventsCommentsOrNoneForOneRequest() throws Exception {
        var events = toolTurn(Map.of("X-Hermes-Tool-Progress", "events")).body();
        assertEquals(2, events.lines().filter(l -> l.equals("event: hermes.tool.progress")).count(), events);
        assertEquals("", joined(chunks(events), "reasoning_content"));

        var trueWord = toolTurn(Map.of("X-Hermes-Tool-Progress", "true")).body();
        assertEquals(2, trueWord.lines().filter(l -> l.equals("event: hermes.tool.progress")).count(), trueWord);

        var comments = toolTurn(Map.of("X-Hermes-Tool-Progress", "comments")).body();
        assertEquals(2, comments.lines().filter(l -> l.startsWith(": hermes.tool.progress {")).count(), comments);
        assertEquals("", joined(chunks(comments), "reasoning_content"));

        var none = toolTurn(Map.of("X-Hermes-Tool-Progress", "false")).body();
        assertFalse(none.contains("hermes.tool.progress") || none.contains("reasoning_content"), none);
        assertEquals("It is 2.", joined(chunks(none), "content"));
    }
}
