package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The assembled server's {@code /mcp} (plugin endpoint-mcp) driven by a real third-party MCP client:
 * the official TypeScript SDK ({@code @modelcontextprotocol/sdk}, its {@code Client} with the
 * streamable HTTP transport), pinned by the lockfile in {@code src/test/node/mcp} and installed with
 * {@code npm ci} by {@link NodeMcp} on first use. It lists and calls our tools with the key;
 * without the key it is refused with 401, and with the family disabled the endpoint is a 404. Needs
 * node and npm (the npm registry is reachable from CI).
 */
class McpServerIT {
    static final Path NODE_DIR = NodeMcp.DIR;
    static final String SCRIPT = "mcp-client.mjs";

    @TempDir Path home;
    @TempDir Path workspace;

    @Test
    void theOfficialTypeScriptClientListsAndCallsOurToolsWithTheKeyAndIsRefusedWithoutIt() throws Exception {
        install();
        var keep = Files.createDirectories(workspace.resolve("keep-me"));
        Files.writeString(keep.resolve("file.txt"), "still here");
        try (var upstream = ScriptedUpstream.start()) {
            upstream.enqueue(Turn.text("abracadabra"));
            var env = env(upstream);
            try (var server = Caduceus.serve(home, env)) {
                var url = server.awaitListening().resolve("/mcp");
                var out = client(url, Caduceus.TEST_KEY, "tools", server);
                assertTrue(out.path("connected").asBoolean(), out.toString());
                assertEquals("caduceus", out.path("server").path("name").asText(), out.toString());
                var tools = out.path("tools").toString();
                assertTrue(tools.contains("\"terminal\"") && tools.contains("\"agent\""), tools);
                assertEquals("[\"command\"]", out.path("terminal").path("inputSchema").path("required").toString(), out.toString());
                assertFalse(out.path("echo").path("isError").asBoolean(), out.toString());
                assertTrue(out.path("echo").path("text").asText().contains("hello over mcp"), out.toString());
                assertTrue(out.path("blocked").path("text").asText().contains("Command blocked"), out.toString());
                assertTrue(Files.exists(keep.resolve("file.txt")), "a dangerous command is refused: no approval channel");
                assertEquals(-32602, out.path("unknown").path("code").asInt(), out.toString());
                assertEquals("abracadabra", out.path("agent").path("text").asText(), out.toString());
                assertFalse(out.path("agent").path("isError").asBoolean(), out.toString());

                for (var key : List.of("", "a-wrong-key-that-is-long-enough")) {
                    var refused = client(url, key, "connect", server);
                    assertFalse(refused.path("connected").asBoolean(), refused.toString());
                    assertEquals(401, refused.path("error").path("code").asInt(), refused.toString());
                }

                var caps = new ObjectMapper().readTree(server.get("/v1/capabilities", Caduceus.KEY_AUTH).body());
                assertTrue(caps.path("features").path("mcp_server").asBoolean(), caps.path("features").toString());
                assertEquals("/mcp", caps.path("endpoints").path("mcp").path("path").asText(), caps.path("endpoints").toString());
            }
        }
    }

    @Test
    void withTheFamilyDisabledTheClientGets404() throws Exception {
        install();
        try (var upstream = ScriptedUpstream.start()) {
            var env = env(upstream);
            env.put("CADUCEUS__PLUGINS__DISABLED", "endpoint-mcp");
            try (var server = Caduceus.serve(home, env)) {
                var out = client(server.awaitListening().resolve("/mcp"), Caduceus.TEST_KEY, "connect", server);
                assertFalse(out.path("connected").asBoolean(), out.toString());
                assertEquals(404, out.path("error").path("code").asInt(), out.toString());
            }
        }
    }

    private Map<String, String> env(ScriptedUpstream upstream) {
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__TOOLS__WORKSPACE", workspace.toString());
        env.put("CADUCEUS__TOOLS__TERMINAL__BACKEND", "local");
        return env;
    }

    /** Runs the client script in {@code mode} against {@code url} with {@code key} ("" for none). */
    private static JsonNode client(URI url, String key, String mode, Caduceus server) throws Exception {
        var node = new ProcessBuilder("node", SCRIPT, mode).directory(NODE_DIR.toFile()).redirectErrorStream(true);
        node.environment().put("MCP_URL", url.toString());
        node.environment().put("API_KEY", key);
        var process = node.start();
        var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the MCP client did not finish");
        assertEquals(0, process.exitValue(), output + "\nserver log:\n" + server.stderr());
        return new ObjectMapper().readTree(output.lines().reduce((a, b) -> b).orElseThrow());
    }

    /** The packages from the lockfile ({@link NodeMcp}) with the client script next to them. */
    private static void install() throws Exception {
        NodeMcp.withScript(SCRIPT);
    }
}
