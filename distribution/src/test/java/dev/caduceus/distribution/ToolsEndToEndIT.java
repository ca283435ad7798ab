package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every shipped tool, end to end: the scripted upstream asks for the tool through
 * {@code /v1/chat/completions}, the real tool plugin runs in the assembled server, and the final
 * answer (which quotes the last tool result) carries its result. Web tools talk to a local fixture
 * server and a fake SearXNG backend; nothing touches the internet.
 */
class ToolsEndToEndIT {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir static Path home;
    static ScriptedUpstream upstream;
    static HttpServer fixtures;
    static Caduceus server;
    static String site;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        fixtures = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        fixtures.createContext("/article.html", ex -> reply(ex, "text/html; charset=utf-8",
                "<html><head><title>Caduceus fixture</title><script>var x=1;</script></head><body>"
                        + "<h1>The staff of Hermes</h1><p>Two snakes wind around a winged staff.</p></body></html>"));
        fixtures.createContext("/search", ex -> reply(ex, "application/json",
                "{\"results\":[{\"title\":\"Fixture result\",\"url\":\"https://example.org/hermes\","
                        + "\"content\":\"About the messenger god\"}]}"));
        fixtures.start();
        site = "http://127.0.0.1:" + fixtures.getAddress().getPort();
        var env = new HashMap<>(Caduceus.KEY_ENV);
        env.put("OPENAI_BASE_URL", upstream.baseUrl());
        env.put("OPENAI_API_KEY", "sk-tools-e2e-upstream-key");
        env.put("CADUCEUS_MODEL", "scripted-model");
        env.put("SEARXNG_URL", site);
        env.put("CADUCEUS__TOOLS__WEB__ALLOW_PRIVATE_ADDRESSES", "true");
        // the host's view of paths; the sandbox's view is tested by SandboxAttacksIT and the plugin's own tests
        env.put("CADUCEUS__TOOLS__TERMINAL__BACKEND", "local");
        server = Caduceus.serve(home, env);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
        if (fixtures != null) fixtures.stop(0);
    }

    @Test
    void terminalRunsACommandInTheWorkspace() throws Exception {
        var answer = askWithTool("terminal", "{\"command\":\"echo hello-$((40+2)) && pwd\"}", Map.of());
        assertTrue(answer.contains("hello-42"), answer);
        assertTrue(answer.contains(Caduceus.defaultWorkspace(home).toString()), answer);
    }

    @Test
    void terminalCommandsFindNeitherTheServersSecretsNorItsStateNextToTheWorkspace() throws Exception {
        // The redactor would hide the values in tool results, so look for the names, which it leaves.
        var environ = askWithTool("terminal", "{\"command\":\"tr '\\\\0' '\\\\n' < /proc/" + server.process.pid()
                + "/environ | cut -d= -f1 | grep -cx -e API_SERVER_KEY -e OPENAI_API_KEY; echo end\"}", Map.of());
        assertTrue(environ.contains("0\nend") || environ.contains("0\\nend"), environ);
        // only the names that matter: a busy temp directory would be cut by the output cap
        var parent = askWithTool("terminal", "{\"command\":\"ls -a .. | grep -x -e '"
                + Caduceus.defaultWorkspace(home).getFileName() + "' -e api_key -e caduceus.db\"}", Map.of());
        assertTrue(parent.contains(Caduceus.defaultWorkspace(home).getFileName().toString()), parent);
        assertFalse(parent.contains("api_key") || parent.contains("caduceus.db"), parent);
    }

    @Test
    void processManagesABackgroundCommandStartedByTerminal() throws Exception {
        var session = Map.of("X-Hermes-Session-Id", "process-e2e");
        var started = askWithTool("terminal", "{\"command\":\"sleep 30\",\"background\":true}", session);
        var sessionId = JSON.readTree(started.substring("Tool result: ".length())).path("session_id").asText();
        assertTrue(!sessionId.isEmpty(), started);
        var listed = askWithTool("process", "{\"action\":\"list\"}", session);
        assertTrue(listed.contains(sessionId), listed);
        var killed = askWithTool("process", "{\"action\":\"kill\",\"session_id\":\"" + sessionId + "\"}", session);
        assertTrue(killed.contains("\"killed\": true"), killed);
    }

    @Test
    void fileToolsWriteReadPatchAndSearchInsideTheWorkspace() throws Exception {
        var wrote = askWithTool("write_file", "{\"path\":\"notes/todo.txt\",\"content\":\"alpha beta\\ngamma\\n\"}", Map.of());
        assertTrue(wrote.startsWith("Tool result: "), wrote);
        assertEquals("alpha beta\ngamma\n", Files.readString(Caduceus.defaultWorkspace(home).resolve("notes/todo.txt")));

        var read = askWithTool("read_file", "{\"path\":\"notes/todo.txt\"}", Map.of());
        assertTrue(read.contains("alpha beta"), read);

        askWithTool("patch", "{\"path\":\"notes/todo.txt\",\"old_string\":\"gamma\",\"new_string\":\"delta\"}", Map.of());
        assertEquals("alpha beta\ndelta\n", Files.readString(Caduceus.defaultWorkspace(home).resolve("notes/todo.txt")));

        var found = askWithTool("search_files", "{\"pattern\":\"delta\"}", Map.of());
        assertTrue(found.contains("todo.txt"), found);

        var escape = askWithTool("read_file", "{\"path\":\"../../../../etc/passwd\"}", Map.of());
        assertTrue(escape.contains("outside the workspace"), escape);
    }

    @Test
    void webSearchUsesTheConfiguredBackendAndWebExtractReadsAPage() throws Exception {
        var results = askWithTool("web_search", "{\"query\":\"hermes staff\"}", Map.of());
        assertTrue(results.contains("https://example.org/hermes"), results);

        var page = askWithTool("web_extract", "{\"urls\":[\"" + site + "/article.html\"]}", Map.of());
        assertTrue(page.contains("Two snakes wind around a winged staff."), page);
        assertTrue(!page.contains("var x=1"), "scripts are dropped: " + page);
    }

    @Test
    void memoryIsStoredPerSessionKeyAndShownInTheNextSystemPrompt() throws Exception {
        var headers = Map.of("X-Hermes-Session-Key", "agent:main:test:user-7");
        var added = askWithTool("memory", "{\"action\":\"add\",\"target\":\"user\",\"content\":\"Prefers metric units\"}",
                headers);
        assertTrue(added.contains("\"success\": true"), added);

        upstream.enqueue(Turn.text("noted"));
        chat("{\"messages\":[{\"role\":\"user\",\"content\":\"what do you know about me?\"}]}", headers);
        var system = upstream.chatRequests().getLast().body().path("messages").get(0).path("content").asText();
        assertTrue(system.contains("Prefers metric units"), system);

        upstream.enqueue(Turn.text("nothing yet"));
        chat("{\"messages\":[{\"role\":\"user\",\"content\":\"and now?\"}]}", Map.of("X-Hermes-Session-Key", "someone-else"));
        var other = upstream.chatRequests().getLast().body().path("messages").get(0).path("content").asText();
        assertTrue(!other.contains("Prefers metric units"), "another scope sees nothing: " + other);
    }

    @Test
    void capabilitiesListTheHermesToolsetsAndTheAvailableTools() throws Exception {
        var caps = JSON.readTree(server.get("/v1/capabilities", Caduceus.KEY_AUTH).body());
        assertEquals("[\"process\",\"terminal\"]", caps.path("tools").path("terminal").toString(), caps.toString());
        assertTrue(caps.path("tools").path("web").toString().contains("web_search"), caps.toString());
        var names = caps.path("toolsets").findValuesAsText("name");
        assertTrue(names.containsAll(java.util.List.of("web", "terminal", "file", "memory", "hermes-api-server")), names.toString());
        var toolsets = JSON.readTree(server.get("/v1/toolsets", Caduceus.KEY_AUTH).body()).path("data");
        for (JsonNode toolset : toolsets)
            if (toolset.path("name").asText().equals("hermes-api-server"))
                assertTrue(toolset.path("enabled").asBoolean() && toolset.path("configured").asBoolean(), toolset.toString());
    }

    /** One chat turn in which the model calls {@code tool} once, then answers quoting its result. */
    private static String askWithTool(String tool, String arguments, Map<String, String> headers) throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_" + tool, tool, arguments)));
        upstream.enqueue(Turn::quotingLastToolResult);
        var body = JSON.readTree(chat("{\"messages\":[{\"role\":\"user\",\"content\":\"use " + tool + "\"}]}", headers));
        return body.path("choices").get(0).path("message").path("content").asText();
    }

    private static String chat(String body, Map<String, String> extra) throws Exception {
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        headers.putAll(extra);
        var response = server.send("POST", "/v1/chat/completions", body, headers);
        assertEquals(200, response.statusCode(), response.body());
        return response.body();
    }

    private static void reply(com.sun.net.httpserver.HttpExchange exchange, String type, String body)
            throws java.io.IOException {
        var bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", type);
        exchange.sendResponseHeaders(200, bytes.length);
        try (var out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
