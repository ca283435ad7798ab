package dev.caduceus.plugin.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * tool-mcp on the real host: the chat family, the runs family, the capabilities family and the model
 * provider, a {@link ScriptedUpstream} as the model asking for {@code mcp_…} tools, and
 * {@link FaultServer} as a real stdio child ({@code java -cp <test class path>}). A second server never
 * answers {@code initialize}: the boot goes on without it. Tests share one host and run one at a time.
 */
class McpHostTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final String SECRET = "sk-parent-secret-4242";

    @TempDir
    static Path faults;
    private static ScriptedUpstream upstream;
    private static TestHost host;

    @BeforeAll
    static void start() {
        upstream = ScriptedUpstream.start();
        upstream.recordRequests(true);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = System.getProperty("java.class.path");
        String config = """
                mcp_servers:
                  faults:
                    command: %s
                    args: ["-cp", %s, "dev.caduceus.plugin.mcp.FaultServer"]
                    env:
                      FAULT_DIR: "${FAULTS_HOME}"
                    timeout: 3
                    connect_timeout: 30
                    supports_parallel_tool_calls: true
                    tools:
                      exclude: [never_offered]
                      prompts: false
                  silent:
                    command: %s
                    args: ["-cp", %s, "dev.caduceus.plugin.mcp.FaultServer", "--silent"]
                    connect_timeout: 1
                  off:
                    url: https://mcp.example.invalid/mcp
                    enabled: false
                """.formatted(quote(java), quote(classPath), quote(java), quote(classPath));
        host = TestHost.builder().plugins("tool-mcp", "endpoint-chat", "endpoint-runs", "endpoint-capabilities",
                        "provider-openai")
                .model(upstream)
                .env("FAULTS_HOME", faults.toString())
                .env("OPENAI_API_KEY", SECRET)
                .env("MY_SERVICE_TOKEN", SECRET)
                .env("CADUCEUS__SERVER__DRAIN_TIMEOUT_SECONDS", "1")
                .configYaml(config)
                .start();
    }

    private static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** Plugin stop closes every session and kills every stdio child: none of our FaultServer children outlives the host. */
    @AfterAll
    static void stop() throws Exception {
        // this JVM starts no process but the MCP servers' (the test JVM is surefire's fork)
        var children = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList();
        if (host != null) host.close();
        if (upstream != null) upstream.close();
        assertFalse(children.isEmpty(), "the fault servers were children of this JVM");
        for (var child : children)
            Eventually.await(DEADLINE, "child " + child.pid() + " is gone", () -> !child.isAlive());
    }

    @BeforeEach
    void reset() {
        upstream.clearQueue();
    }

    /** One chat turn in which the model calls {@code tool} with {@code arguments}, then quotes the result. */
    private static String turn(String tool, String arguments) throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", tool, arguments)));
        upstream.enqueue(Turn::quotingLastToolResult);
        var response = host.http().post("/v1/chat/completions",
                "{\"model\":\"hermes-agent\",\"messages\":[{\"role\":\"user\",\"content\":\"use the tool\"}]}");
        assertEquals(200, response.status(), response.body());
        return response.json().path("choices").path(0).path("message").path("content").asText();
    }

    /** The tools the model was offered in its latest request, by name. */
    private static List<JsonNode> offered() {
        var tools = new ArrayList<JsonNode>();
        upstream.chatRequests().getLast().body().path("tools").forEach(tools::add);
        return tools;
    }

    private static Set<String> offeredNames() {
        var names = new TreeSet<String>();
        offered().forEach(t -> names.add(t.path("function").path("name").asText()));
        return names;
    }

    @Test
    void aToolIsCalledThroughATurnAndItsResultQuoted() throws Exception {
        assertEquals("Tool result: echo: hello", turn("mcp_faults_echo", "{\"text\":\"hello\"}"));
        var names = offeredNames();
        assertTrue(names.containsAll(List.of("mcp_faults_echo", "mcp_faults_fail", "mcp_faults_list_resources",
                "mcp_faults_read_resource")), names.toString());
        assertFalse(names.contains("mcp_faults_list_prompts"), "prompts: false and no prompts capability");
    }

    @Test
    void aMalformedSchemaIsOfferedAsAnEmptyObjectSchema() throws Exception {
        assertEquals("Tool result: schema was bad", turn("mcp_faults_bad_schema", "{}"));
        var bad = offered().stream().filter(t -> t.path("function").path("name").asText().equals("mcp_faults_bad_schema"))
                .findFirst().orElseThrow();
        assertEquals(JSON.readTree("{\"type\":\"object\",\"properties\":{}}"), bad.path("function").path("parameters"));
    }

    @Test
    void anIsErrorResultReachesTheModelAsAnError() throws Exception {
        assertTrue(turn("mcp_faults_fail", "{}").contains("it broke on purpose"));
    }

    @Test
    void aHugeResultIsCappedByTheHost() throws Exception {
        var answer = turn("mcp_faults_huge", "{}");
        assertTrue(answer.length() < 120_000 && answer.length() > 50_000, "length " + answer.length());
    }

    @Test
    void anImageIsAPlaceholder() throws Exception {
        assertEquals("Tool result: a picture:\n[image: image/png, 12.3 KB, not shown]", turn("mcp_faults_picture", "{}"));
    }

    @Test
    void aResourceIsReadByTheUtilityTool() throws Exception {
        assertEquals("Tool result: read me, model", turn("mcp_faults_read_resource", "{\"uri\":\"fault://readme\"}"));
    }

    @Test
    void aCallPastTheTimeoutIsCancelledAndTheRunGoesOn() throws Exception {
        var answer = turn("mcp_faults_hang", "{}");
        assertTrue(answer.startsWith("Tool result: ") && answer.contains("did not answer tool 'hang' within 3 s"), answer);
        Eventually.await(DEADLINE, "the server is told the call is cancelled", () -> read("cancelled").contains("timed out"));
    }

    @Test
    void aCrashedServerIsRestartedByTheNextCall() throws Exception {
        var first = turn("mcp_faults_crash", "{}");
        assertTrue(first.contains("stopped during tool 'crash'"), first);
        assertEquals("Tool result: survived the crash", turn("mcp_faults_crash", "{}"));
    }

    @Test
    void aListChangedNotificationIsSeenByTheNextTurn() throws Exception {
        assertEquals("Tool result: added", turn("mcp_faults_add_tool", "{}"));
        Eventually.await(DEADLINE, "the new tool is listed", () -> capabilitiesServer("faults").path("tools").asInt() > 10
                && capabilities().toString().contains("mcp_faults_late"));
        assertEquals("Tool result: late tool answered", turn("mcp_faults_late", "{}"));
        assertTrue(offeredNames().contains("mcp_faults_late"));
    }

    @Test
    void theChildGetsOnlyItsEnvAndAMinimalPathAndHome() throws Exception {
        var answer = turn("mcp_faults_env", "{}");
        assertFalse(answer.contains(SECRET), answer);
        var body = answer.substring(answer.indexOf('{') + 1, answer.lastIndexOf('}'));
        var names = new TreeSet<String>();
        for (var pair : body.split(", (?=[A-Z_]+=)")) names.add(pair.substring(0, pair.indexOf('=')));
        assertEquals(Set.of("FAULT_DIR", "HOME", "PATH"), names, answer);
        assertTrue(answer.contains("FAULT_DIR=" + faults), "${FAULTS_HOME} came from the host's environment");
    }

    @Test
    void aStoppedRunSendsNotificationsCancelled() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_slow", "mcp_faults_slow", "{}")));
        upstream.enqueue(Turn.text("stopped"));
        var created = host.http().post("/v1/runs", "{\"input\":\"go slow\"}");
        assertEquals(202, created.status() / 100 * 100 == 200 ? 202 : created.status(), created.body());
        String id = created.json().path("run_id").asText();
        Eventually.await(DEADLINE, "the slow tool started", () -> read("slow-started").contains("started"));
        var stop = host.http().post("/v1/runs/" + id + "/stop", "{}");
        assertEquals(2, stop.status() / 100, stop.body());
        Eventually.await(DEADLINE, "the server is told the call is cancelled",
                () -> read("cancelled").contains("the run was stopped"));
        Eventually.await(DEADLINE, "the run ends", () -> !host.http().get("/v1/runs/" + id).json().path("status")
                .asText().matches("queued|running|started"));
    }

    @Test
    void aServerThatNeverAnswersIsUnavailableAndTheBootWentOn() throws Exception {
        var silent = capabilitiesServer("silent");
        assertEquals("unavailable", silent.path("status").asText(), silent.toString());
        assertEquals("stdio", silent.path("transport").asText());
        assertEquals(0, silent.path("tools").asInt());
        assertTrue(silent.path("reason").asText().contains("connect_timeout"), silent.toString());
        var faultsServer = capabilitiesServer("faults");
        assertEquals("connected", faultsServer.path("status").asText(), faultsServer.toString());
        assertEquals("disabled", capabilitiesServer("off").path("status").asText());
        var health = host.http().get("/health/detailed").json();
        var check = findCheck(health, "mcp");
        assertTrue(check.toString().contains("unavailable"), health.toString());
        assertTrue(check.toString().contains("connect_timeout"), check.toString());
    }

    private static JsonNode findCheck(JsonNode node, String name) {
        if (node.has(name)) return node.get(name);
        for (var child : node) {
            var found = findCheck(child, name);
            if (found != null) return found;
        }
        return null;
    }

    private static JsonNode capabilities() throws Exception {
        return host.http().get("/v1/capabilities").json();
    }

    private static JsonNode capabilitiesServer(String name) throws Exception {
        for (var server : capabilities().path("mcp_servers")) if (server.path("name").asText().equals(name)) return server;
        throw new AssertionError("no server " + name + " in " + capabilities());
    }

    private static String read(String file) throws Exception {
        var path = faults.resolve(file);
        return Files.exists(path) ? Files.readString(path) : "";
    }
}
