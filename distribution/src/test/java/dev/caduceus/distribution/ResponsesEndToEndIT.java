package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * /v1/responses end to end: the official openai npm SDK (create, chained turns, streaming,
 * stream().finalResponse() over a tool call, inputItems.list paging) and the Python SDK's input_items request, a conversation that survives a server restart, and a
 * stream cut by {@code kill -9} that reads {@code incomplete} after the next start.
 */
class ResponsesEndToEndIT {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path home;

    private Map<String, String> env(ScriptedUpstream upstream) {
        var env = Caduceus.upstreamEnv(upstream);
        return env;
    }

    @Test
    void theOfficialSdkCreatesChainsStreamsAndFinishesAResponseStream() throws Exception {
        try (var upstream = ScriptedUpstream.start()) {
            upstream.enqueue(Turn.text("first answer"), Turn.text("second answer"), Turn.text("third answer"),
                    Turn.textChunks("streamed ", "answer"),
                    Turn.toolCalls(Turn.ToolCall.of("call_1", "add", "{\"a\":40,\"b\":2}")));
            upstream.enqueue(Turn::quotingLastToolResult);
            ThirdPartyPlugins.calc(home.resolve("plugins"));
            var env = env(upstream);
            env.put("CADUCEUS__AGENT__TOOLSETS", "hermes-api-server,calc");
            try (var server = Caduceus.serve(home, env)) {
                var result = NodeSdk.run("sdk-responses.mjs", server.awaitListening(), Caduceus.TEST_KEY, server.stderr());
                assertEquals("first answer", result.path("first").asText(), result.toString());
                assertEquals("completed", result.path("firstStatus").asText());
                assertEquals("third answer", result.path("third").asText());
                assertEquals("[\"message:user:turn one\",\"message:assistant:first answer\",\"message:user:turn two\","
                        + "\"message:assistant:second answer\",\"message:user:turn three\"]",
                        result.path("inputItems").toString(), "inputItems.list pages through the whole context");
                assertEquals("turn three", result.path("newestInputItem").asText(), "newest first by default");
                pythonSdkStyleInputItems(server, result.path("thirdId").asText());
                assertEquals("streamed answer", result.path("stream").asText());
                assertEquals("Tool result: {\"sum\": 42}", result.path("helper").asText(), result.toString());
                assertEquals("completed", result.path("helperStatus").asText());
                assertEquals("[\"mcp_call\",\"message\"]", result.path("helperItems").toString(),
                        "the step the server ran is one mcp_call item (issue 42)");

                var third = texts(upstream.chatRequests().get(2).body());
                assertTrue(third.containsAll(List.of("turn one", "first answer", "turn two", "second answer", "turn three")),
                        "turn 3 is sent with the whole chain: " + third);
            }
        }
    }

    @Test
    void aConversationSurvivesARestartBetweenTwoTurns() throws Exception {
        try (var upstream = ScriptedUpstream.start()) {
            upstream.enqueue(Turn.text("Nice to meet you, Ana."));
            String firstId;
            try (var server = Caduceus.serve(home, env(upstream))) {
                var first = create(server, "{\"input\":\"My name is Ana.\",\"conversation\":\"intro\"}");
                assertEquals("completed", first.path("status").asText(), first.toString());
                firstId = first.path("id").asText();
            }
            upstream.enqueue(Turn.text("You are Ana."));
            try (var server = Caduceus.serve(home, env(upstream))) {
                var second = create(server, "{\"input\":\"What is my name?\",\"conversation\":\"intro\"}");
                assertEquals("You are Ana.", second.path("output").get(0).path("content").get(0).path("text").asText());
                var sent = texts(upstream.chatRequests().getLast().body());
                assertTrue(sent.containsAll(List.of("My name is Ana.", "Nice to meet you, Ana.", "What is my name?")), sent.toString());
                var stored = server.get("/v1/responses/" + firstId, Caduceus.KEY_AUTH);
                assertEquals(200, stored.statusCode(), "responses are kept across restarts");
                listedAndDeletedAsAConversation(server, second.path("id").asText(), firstId);
            }
        }
    }

    /** The console's lists on the assembled server: the chain, the name, and its removal. */
    private static void listedAndDeletedAsAConversation(Caduceus server, String secondId, String firstId) throws Exception {
        var page = JSON.readTree(server.get("/v1/responses?conversation=intro", Caduceus.KEY_AUTH).body());
        assertEquals(2, page.path("data").size(), page.toString());
        assertEquals(secondId, page.at("/data/0/id").asText());
        assertEquals(firstId, page.at("/data/1/id").asText());
        assertEquals("What is my name?", page.at("/data/0/input_preview").asText());
        assertEquals("You are Ana.", page.at("/data/0/output_preview").asText());
        var names = JSON.readTree(server.get("/api/conversations", Caduceus.KEY_AUTH).body()).path("conversations");
        assertEquals("intro", names.path(0).path("name").asText(), names.toString());
        assertEquals(2, names.path(0).path("turns").asInt());
        var deleted = server.send("DELETE", "/api/conversations/intro", null, Caduceus.KEY_AUTH);
        assertEquals(200, deleted.statusCode(), deleted.body());
        assertEquals("{\"deleted\":true,\"name\":\"intro\",\"responses_deleted\":2}", deleted.body());
        assertEquals(404, server.get("/v1/responses/" + firstId, Caduceus.KEY_AUTH).statusCode());
        var endpoints = JSON.readTree(server.get("/v1/capabilities", Caduceus.KEY_AUTH).body()).path("endpoints");
        assertEquals("/v1/responses", endpoints.at("/response_list/path").asText(), endpoints.toString());
        assertEquals("/api/conversations", endpoints.at("/conversation_list/path").asText());
        assertEquals("/api/conversations/{name}", endpoints.at("/conversation_delete/path").asText());
    }

    @Test
    void aClientThatLeavesMidStreamLeavesAnIncompleteSnapshotAndFreesTheSlot() throws Exception {
        try (var upstream = ScriptedUpstream.start()) {
            upstream.enqueue(Turn.textChunks("one ", "two ", "three ", "four ", "five").chunkDelayMillis(400));
            var env = env(upstream);
            env.put("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "1");
            try (var server = Caduceus.serve(home, env)) {
                var uri = server.awaitListening();
                var body = "{\"input\":\"count slowly\",\"stream\":true}";
                String id = null;
                try (var socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
                    socket.getOutputStream().write(("POST /v1/responses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                            + Caduceus.TEST_KEY + "\r\nContent-Type: application/json\r\nContent-Length: "
                            + body.length() + "\r\n\r\n" + body).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    var reader = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                            java.nio.charset.StandardCharsets.UTF_8));
                    String line;
                    while ((line = reader.readLine()) != null && !line.contains("response.output_text.delta")) {
                        if (id == null && line.startsWith("data: ") && line.contains("response.created"))
                            id = JSON.readTree(line.substring(6)).path("response").path("id").asText();
                    }
                } // gone after the first text delta
                upstream.enqueue(Turn.text("free again"));
                var headers = new HashMap<>(Caduceus.KEY_AUTH);
                headers.put("Content-Type", "application/json");
                var next = Eventually.await(Duration.ofSeconds(10), "the slot was released",
                        () -> server.send("POST", "/v1/responses", "{\"input\":\"are you free?\"}", headers),
                        r -> r.statusCode() != 429);
                assertEquals(200, next.statusCode(), "the slot was released: " + next.body());
                var stored = JSON.readTree(server.get("/v1/responses/" + id, Caduceus.KEY_AUTH).body());
                assertEquals("incomplete", stored.path("status").asText(), stored.toString());
            }
        }
    }

    @Test
    void aResponseStreamingWhenTheServerWasKilledIsIncompleteAfterTheRestart() throws Exception {
        // On PostgreSQL another node may still be writing a stream, so a start ends only streams whose
        // 60 s stream lease ran out (ResponsesClusterTest covers that); this test's instant recovery is SQLite's.
        org.junit.jupiter.api.Assumptions.assumeFalse(Caduceus.onPostgres(),
                "on PostgreSQL a killed node's in-progress streams end when their stream lease runs out");
        try (var upstream = ScriptedUpstream.start()) {
            upstream.enqueue(Turn.textChunks("one ", "two ", "three ", "four ", "five").chunkDelayMillis(3_000));
            var env = env(upstream);
            String id = null;
            var first = Caduceus.serve(home, env);
            try {
                var uri = first.awaitListening();
                var body = "{\"input\":\"count slowly\",\"stream\":true}";
                try (var socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
                    socket.getOutputStream().write(("POST /v1/responses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                            + Caduceus.TEST_KEY + "\r\nContent-Type: application/json\r\nContent-Length: "
                            + body.length() + "\r\n\r\n" + body).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    var reader = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                            java.nio.charset.StandardCharsets.UTF_8));
                    String line;
                    while ((line = reader.readLine()) != null && !line.contains("response.output_text.delta")) {
                        if (id == null && line.startsWith("data: ") && line.contains("response.created"))
                            id = JSON.readTree(line.substring(6)).path("response").path("id").asText();
                    }
                    var during = JSON.readTree(first.get("/v1/responses/" + id, Caduceus.KEY_AUTH).body());
                    assertEquals("in_progress", during.path("status").asText(), during.toString());
                    first.process.destroyForcibly(); // kill -9 while the client still listens
                    assertTrue(first.process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
                }
            } finally {
                first.process.destroyForcibly();
            }
            try (var second = Caduceus.serve(home, env)) {
                var stored = second.get("/v1/responses/" + id, Caduceus.KEY_AUTH);
                assertEquals(200, stored.statusCode(), stored.body());
                assertEquals("incomplete", JSON.readTree(stored.body()).path("status").asText(), stored.body());
                try (var replay = SseReader.open(java.net.http.HttpClient.newHttpClient(),
                        second.awaitListening().resolve("/v1/responses/" + id + "?stream=true"), Caduceus.KEY_AUTH)) {
                    var frames = replay.rest();
                    assertEquals("response.created", frames.getFirst().data().path("type").asText());
                    var last = frames.getLast().data();
                    assertEquals("response.incomplete", last.path("type").asText(), last.toString());
                    assertEquals("incomplete", last.path("response").path("status").asText());
                }
            }
        }
    }

    /**
     * What {@code client.responses.input_items.list(id, limit=2)} of the openai Python SDK sends (its
     * headers as of 1.x), then its next page, an unknown id and a bad limit; and the route in
     * {@code /v1/capabilities}.
     */
    private static void pythonSdkStyleInputItems(Caduceus server, String id) throws Exception {
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Accept", "application/json");
        headers.put("User-Agent", "OpenAI/Python 1.109.1");
        headers.put("X-Stainless-Lang", "python");
        headers.put("X-Stainless-Package-Version", "1.109.1");
        headers.put("X-Stainless-Retry-Count", "0");
        var first = server.send("GET", "/v1/responses/" + id + "/input_items?limit=2", null, headers);
        assertEquals(200, first.statusCode(), first.body());
        assertTrue(first.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
        var page = JSON.readTree(first.body());
        assertEquals("list", page.path("object").asText());
        assertEquals(2, page.path("data").size());
        assertEquals("turn three", page.at("/data/0/content/0/text").asText());
        assertEquals("second answer", page.at("/data/1/content/0/text").asText());
        assertEquals(page.at("/data/0/id").asText(), page.path("first_id").asText());
        assertTrue(page.path("has_more").asBoolean());
        var next = JSON.readTree(server.send("GET", "/v1/responses/" + id + "/input_items?limit=2&after="
                + page.path("last_id").asText(), null, headers).body());
        assertEquals("turn two", next.at("/data/0/content/0/text").asText(), next.toString());
        var unknown = server.send("GET", "/v1/responses/resp_unknown/input_items", null, headers);
        assertEquals(404, unknown.statusCode());
        assertEquals("response_not_found", JSON.readTree(unknown.body()).at("/error/code").asText(), unknown.body());
        var bad = server.send("GET", "/v1/responses/" + id + "/input_items?limit=0", null, headers);
        assertEquals(400, bad.statusCode());
        assertEquals("invalid_limit", JSON.readTree(bad.body()).at("/error/code").asText(), bad.body());
        var caps = JSON.readTree(server.get("/v1/capabilities", Caduceus.KEY_AUTH).body());
        assertEquals("{\"method\":\"GET\",\"path\":\"/v1/responses/{response_id}/input_items\"}",
                caps.at("/endpoints/response_input_items").toString());
        assertTrue(caps.at("/features/responses_input_items").asBoolean());
    }

    private static JsonNode create(Caduceus server, String body) throws Exception {
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        var response = server.send("POST", "/v1/responses", body, headers);
        assertEquals(200, response.statusCode(), response.body());
        return JSON.readTree(response.body());
    }

    private static List<String> texts(JsonNode upstreamBody) {
        var out = new java.util.ArrayList<String>();
        for (var message : upstreamBody.path("messages")) {
            var content = message.path("content");
            if (content.isTextual()) out.add(content.asText());
        }
        return out;
    }
}
