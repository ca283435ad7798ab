package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Hermes {@code mcp_servers:} block in {@code config.yaml} gives the agent those servers' tools,
 * end to end on the assembled server: the official {@code server-everything} over stdio and over
 * streamable HTTP and {@code server-filesystem} over stdio (from npm, pinned by the repo's lockfile),
 * each tool asked for by the scripted upstream through {@code /v1/chat/completions}, the final answer
 * quoting the result. Also: the servers in {@code /v1/capabilities}, a long-running MCP tool ended by
 * a run stop, the stdio child's environment (none of the server's secrets), and {@code caduceus mcp}.
 */
class McpClientIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String UPSTREAM_KEY = "sk-mcp-it-upstream-key-0123456789";

    @TempDir static Path home;
    @TempDir static Path files;
    static ScriptedUpstream upstream;
    static Process everythingHttp;
    static Process everythingSse;
    static Caduceus server;
    static Path config;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        var url = new CompletableFuture<String>();
        everythingHttp = NodeMcp.everythingOverHttp(freePort(), url);
        String httpUrl = url.get(60, TimeUnit.SECONDS);
        var sseUrl = new CompletableFuture<String>();
        everythingSse = NodeMcp.everythingOverSse(freePort(), sseUrl);
        String legacyUrl = sseUrl.get(60, TimeUnit.SECONDS);
        Files.writeString(files.resolve("note.txt"), "the caduceus has two snakes\n");
        config = home.resolve("config.yaml");
        Files.writeString(config, """
                mcp_servers:
                  everything:
                    command: node
                    args: ["%s", "stdio"]
                    timeout: 60
                  everything_http:
                    url: "${EVERYTHING_URL}"
                    headers:
                      X-Test: mcp-it
                  everything_sse:
                    url: "%s"
                  files:
                    command: node
                    args: ["%s", "%s"]
                  parked:
                    command: node
                    enabled: false
                """.formatted(NodeMcp.script("server-everything/dist/index.js"), legacyUrl,
                NodeMcp.script("server-filesystem/dist/index.js"), files.toRealPath()));
        var env = Caduceus.upstreamEnv(upstream);
        env.put("OPENAI_API_KEY", UPSTREAM_KEY);
        env.put("EVERYTHING_URL", httpUrl);
        server = Caduceus.serve(home, env);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
        for (var node : new Process[] {everythingHttp, everythingSse}) {
            if (node == null) continue;
            node.destroy();
            node.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static int freePort() throws Exception {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void stdioServerToolsAnswerThroughChat() throws Exception {
        var echo = askWithTool("mcp_everything_echo", "{\"message\":\"hello-over-stdio\"}");
        assertTrue(echo.contains("Echo: hello-over-stdio"), echo);
        var sum = askWithTool("mcp_everything_get_sum", "{\"a\":3,\"b\":4}");
        assertTrue(sum.contains("7"), sum);
    }

    @Test
    void resourcesAndPromptsHaveTheirUtilityTools() throws Exception {
        var resource = askWithTool("mcp_everything_read_resource", "{\"uri\":\"demo://resource/dynamic/text/1\"}");
        assertTrue(resource.contains("Resource 1: This is a plaintext resource"), resource);
        var prompt = askWithTool("mcp_everything_get_prompt", "{\"name\":\"simple-prompt\"}");
        assertTrue(prompt.contains("This is a simple prompt without arguments."), prompt);
        var listed = askWithTool("mcp_everything_list_resources", "{}");
        assertTrue(listed.contains("demo://"), listed);
    }

    @Test
    void streamableHttpServerToolsAnswerThroughChat() throws Exception {
        var echo = askWithTool("mcp_everything_http_echo", "{\"message\":\"hello-over-http\"}");
        assertTrue(echo.contains("Echo: hello-over-http"), echo);
    }

    @Test
    void aServerThatSpeaksOnlyTheOlderHttpSseTransportIsReachedThroughTheFallback() throws Exception {
        var echo = askWithTool("mcp_everything_sse_echo", "{\"message\":\"hello-over-sse\"}");
        assertTrue(echo.contains("Echo: hello-over-sse"), echo);
        var servers = JSON.readTree(server.get("/v1/capabilities", Caduceus.KEY_AUTH).body()).path("mcp_servers");
        for (var s : servers)
            if (s.path("name").asText().equals("everything_sse"))
                assertEquals("sse", s.path("transport").asText(), s.toString());
    }

    @Test
    void filesystemServerReadsItsAllowedDirectory() throws Exception {
        var read = askWithTool("mcp_files_read_text_file",
                "{\"path\":" + JSON.writeValueAsString(files.toRealPath().resolve("note.txt").toString()) + "}");
        assertTrue(read.contains("the caduceus has two snakes"), read);
    }

    @Test
    void theStdioChildSeesNoneOfTheServersSecrets() throws Exception {
        // The redactor would mask the values in tool results, so look for the names it leaves.
        var environment = askWithTool("mcp_everything_get_env", "{}");
        assertTrue(environment.contains("PATH"), environment);
        for (var secret : new String[] {"API_SERVER_KEY", "OPENAI_API_KEY", "EVERYTHING_URL"})
            assertFalse(environment.contains(secret), secret + " reached the MCP child: " + environment);
    }

    @Test
    void capabilitiesListTheServersWithTheirState() throws Exception {
        var response = server.get("/v1/capabilities", Caduceus.KEY_AUTH);
        assertEquals(200, response.statusCode(), response.body());
        var servers = new HashMap<String, JsonNode>();
        JSON.readTree(response.body()).path("mcp_servers").forEach(s -> servers.put(s.path("name").asText(), s));
        assertEquals("connected", servers.get("everything").path("status").asText(), servers.toString());
        assertEquals("stdio", servers.get("everything").path("transport").asText());
        assertTrue(servers.get("everything").path("tools").asInt() >= 5, servers.toString());
        assertEquals("connected", servers.get("everything_http").path("status").asText(), servers.toString());
        assertEquals("http", servers.get("everything_http").path("transport").asText());
        assertEquals("connected", servers.get("files").path("status").asText(), servers.toString());
        assertEquals("disabled", servers.get("parked").path("status").asText(), servers.toString());
    }

    @Test
    void aRunStopEndsALongRunningMcpTool() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_long", "mcp_everything_trigger_long_running_operation",
                "{\"duration\":60,\"steps\":60}")));
        upstream.setDefault(Turn.text("done"));
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        var started = server.send("POST", "/v1/runs", "{\"input\":\"run the long operation\"}", headers);
        assertEquals(202, started.statusCode(), started.body());
        var runId = JSON.readTree(started.body()).path("run_id").asText();
        try (var events = SseReader.open(java.net.http.HttpClient.newHttpClient(),
                server.awaitListening().resolve("/v1/runs/" + runId + "/events"), Caduceus.KEY_AUTH)) {
            assertEquals(200, events.status());
            while (!events.next().data().path("event").asText().equals("tool.started")) {
                // the model's turn, then the MCP call starts
            }
        }
        var stopped = server.send("POST", "/v1/runs/" + runId + "/stop", "", headers);
        assertTrue(stopped.statusCode() < 300, stopped.body());
        var run = Eventually.await(Duration.ofSeconds(20), "the run ends cancelled",
                () -> JSON.readTree(server.get("/v1/runs/" + runId, Caduceus.KEY_AUTH).body()),
                r -> r.path("status").asText().equals("cancelled"));
        assertEquals("cancelled", run.path("status").asText());
        var echo = askWithTool("mcp_everything_echo", "{\"message\":\"still-here\"}");
        assertTrue(echo.contains("Echo: still-here"), "the server still answers after the cancel: " + echo);
    }

    @Test
    void mcpCommandsListAndTestTheServers() throws Exception {
        var env = Map.of("EVERYTHING_URL", "http://127.0.0.1:9/mcp");
        try (var list = Caduceus.launch(home, env, "mcp", "list", "--config", config.toString())) {
            assertEquals(0, list.awaitExit(), list.stderr());
            var out = list.stdout();
            assertTrue(out.contains("everything") && out.contains("connected") && out.contains("mcp_everything_echo"), out);
            assertTrue(out.contains("everything_http") && out.contains("unavailable"), "port 9 refuses: " + out);
            assertTrue(out.contains("parked") && out.contains("disabled"), out);
        }
        try (var plugins = Caduceus.launch(home, env, "plugins", "--config", config.toString())) {
            assertEquals(0, plugins.awaitExit(), plugins.stderr());
            var out = plugins.stdout();
            assertTrue(out.contains("mcp server everything  stdio  connected"), out);
            assertTrue(out.contains("mcp server everything_http  http  unavailable") && out.contains("reason: "), out);
        }
        try (var test = Caduceus.launch(home, env, "mcp", "test", "files", "--config", config.toString())) {
            assertEquals(0, test.awaitExit(), test.stderr());
            assertTrue(test.stdout().contains("mcp_files_read_text_file"), test.stdout());
        }
        try (var unknown = Caduceus.launch(home, env, "mcp", "test", "nope", "--config", config.toString())) {
            assertEquals(2, unknown.awaitExit(), unknown.stdout());
            assertTrue(unknown.stdout().contains("No MCP server 'nope'"), unknown.stdout());
        }
    }

    @Test
    void configurationMistakesStopTheStartNamingTheServerTheKeyAndTheFile(@TempDir Path other) throws Exception {
        var file = other.resolve("config.yaml");
        var mistakes = Map.of(
                "mcp_servers:\n  both:\n    command: node\n    url: http://127.0.0.1:9/mcp\n",
                "mcp_servers.both.command and mcp_servers.both.url",
                "mcp_servers:\n  typed:\n    command: node\n    timeout: soon\n", "mcp_servers.typed.timeout",
                "mcp_servers:\n  unset:\n    command: node\n    args: [\"${MCP_IT_NOT_SET}\"]\n", "${MCP_IT_NOT_SET}");
        for (var mistake : mistakes.entrySet()) {
            Files.writeString(file, mistake.getKey());
            try (var plugins = Caduceus.launch(other, Map.of(), "plugins")) {
                assertEquals(2, plugins.awaitExit(), mistake.getKey() + "\n" + plugins.stderr());
                var error = plugins.stderr().lines().filter(l -> l.startsWith("caduceus: ")).findFirst().orElse(plugins.stderr());
                assertTrue(error.contains(mistake.getValue()) && error.contains(file.toString()), error);
            }
        }
        Files.writeString(file, "mcp_servers:\n  typo:\n    command: node\n    timout: 5\n    enabled: false\n");
        try (var plugins = Caduceus.launch(other, Map.of(), "plugins")) {
            assertEquals(0, plugins.awaitExit(), plugins.stderr());
            assertTrue((plugins.stdout() + plugins.stderr()).contains("Unknown configuration key mcp_servers.typo.timout"),
                    plugins.stderr());
        }
    }

    private static String askWithTool(String tool, String arguments) throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_" + tool, tool, arguments)));
        upstream.enqueue(Turn::quotingLastToolResult);
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        var response = server.send("POST", "/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"use " + tool + "\"}]}", headers);
        assertEquals(200, response.statusCode(), response.body());
        return JSON.readTree(response.body()).path("choices").get(0).path("message").path("content").asText();
    }
}
