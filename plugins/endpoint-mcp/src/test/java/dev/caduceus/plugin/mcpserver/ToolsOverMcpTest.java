package dev.caduceus.plugin.mcpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Files;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** initialize, tools/list and tools/call against the real host and its real tools (terminal, file). */
class ToolsOverMcpTest {
    static McpHost mcp;

    @BeforeAll
    static void boot() {
        mcp = McpHost.start();
    }

    @AfterAll
    static void close() {
        mcp.close();
    }

    @Test
    void initializeAnswersTheAskedVersionAndTheToolsCapabilityAndInitializedIsAccepted() {
        var init = mcp.request("initialize", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}").path("result");
        assertEquals("2025-06-18", init.path("protocolVersion").asText(), init.toString());
        assertEquals("caduceus", init.path("serverInfo").path("name").asText());
        assertTrue(init.path("capabilities").has("tools"), init.toString());
        assertFalse(init.path("capabilities").has("resources"), init.toString());
        var initialized = mcp.post(mcp.http, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        assertEquals(202, initialized.status(), initialized.body());
        assertEquals("", initialized.body());
        assertEquals("{}", mcp.request("ping", null).path("result").toString());
    }

    @Test
    void anUnknownProtocolVersionGetsTheLatestThisServerSpeaks() {
        var init = mcp.request("initialize", "{\"protocolVersion\":\"1999-01-01\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}").path("result");
        assertEquals("2025-11-25", init.path("protocolVersion").asText(), init.toString());
    }

    @Test
    void toolsListOffersTheDeploymentsToolsAsTheirSpecsGiveThemAndTheAgentTool() {
        var list = mcp.request("tools/list", null);
        var names = McpHost.names(list);
        assertTrue(names.containsAll(java.util.List.of("terminal", "process", "read_file", "write_file", "agent")), names.toString());
        var terminal = tool(list, "terminal");
        assertTrue(terminal.path("description").asText().startsWith("Run a shell command"), terminal.toString());
        assertEquals("object", terminal.path("inputSchema").path("type").asText());
        assertEquals("[\"command\"]", terminal.path("inputSchema").path("required").toString());
        assertEquals("string", terminal.path("inputSchema").path("properties").path("command").path("type").asText());
        assertTrue(tool(list, "read_file").path("annotations").path("readOnlyHint").asBoolean(), list.toString());
        assertEquals("[\"prompt\"]", tool(list, "agent").path("inputSchema").path("required").toString());
    }

    @Test
    void toolsCallRunsTheToolAndReturnsItsResultAsText() {
        var result = mcp.call("terminal", "{\"command\":\"echo hello from mcp\"}");
        assertFalse(result.path("isError").asBoolean(), result.toString());
        assertEquals("text", result.path("content").get(0).path("type").asText());
        assertTrue(McpHost.text(result).contains("hello from mcp"), result.toString());
    }

    @Test
    void callsOfOneKeyShareTheirTerminalSessionAndAnotherKeyHasItsOwn() {
        mcp.call("terminal", "{\"command\":\"export MCP_MARK=admins\"}");
        assertTrue(McpHost.text(mcp.call("terminal", "{\"command\":\"echo mark=$MCP_MARK\"}")).contains("mark=admins"));
        var tenant = mcp.http.withKey(mcp.host.addKey("session-tenant"));
        var theirs = McpHost.text(mcp.call(tenant, "terminal", "{\"command\":\"echo mark=$MCP_MARK\"}"));
        assertTrue(theirs.contains("mark=") && !theirs.contains("mark=admins"), theirs);
    }

    @Test
    void aToolErrorIsAnErrorResultWithTheMessage() {
        var result = mcp.call("process", "{\"action\":\"juggle\"}"); // the tool's own error result
        assertTrue(result.path("isError").asBoolean(), result.toString());
        assertTrue(McpHost.text(result).contains("Invalid action"), result.toString());
    }

    @Test
    void aDangerousCommandIsRefusedForWantOfAnApprovalChannel() throws Exception {
        var dir = Files.createDirectories(mcp.host.home().getParent().resolve("workspace").resolve("keep-me"));
        Files.writeString(dir.resolve("file.txt"), "still here");
        var result = mcp.call("terminal", "{\"command\":\"rm -rf keep-me\"}");
        assertTrue(McpHost.text(result).contains("Command blocked"), result.toString());
        assertTrue(Files.exists(dir.resolve("file.txt")), "the command never ran");
    }

    @Test
    void anUnknownToolIsInvalidParams() {
        var response = mcp.request("tools/call", "{\"name\":\"no_such_tool\",\"arguments\":{}}");
        assertEquals(-32602, response.path("error").path("code").asInt(), response.toString());
        assertTrue(response.path("error").path("message").asText().contains("no_such_tool"), response.toString());
        assertFalse(response.has("result"));
    }

    @Test
    void toolsCallWithoutANameOrWithArgumentsThatAreNoObjectIsInvalidParams() {
        assertEquals(-32602, mcp.request("tools/call", "{\"arguments\":{}}").path("error").path("code").asInt());
        assertEquals(-32602, mcp.request("tools/call", "{\"name\":\"terminal\",\"arguments\":[1]}").path("error").path("code").asInt());
    }

    @Test
    void theAgentToolRunsOneTurnAndReturnsItsFinalAnswer() {
        mcp.upstream.enqueue(Turn.text("forty-two, said the agent"));
        var result = mcp.call("agent", "{\"prompt\":\"what is six times seven?\"}");
        assertFalse(result.path("isError").asBoolean(), result.toString());
        assertEquals("forty-two, said the agent", McpHost.text(result));
        var sent = mcp.upstream.chatRequests().getLast().body().path("messages").toString();
        assertTrue(sent.contains("what is six times seven?"), sent);
        var empty = mcp.call("agent", "{\"prompt\":\"  \"}");
        assertTrue(empty.path("isError").asBoolean(), empty.toString());
    }

    @Test
    void theCapabilitiesDocumentListsTheFamilyAndItsRoute() {
        var caps = mcp.http.get("/v1/capabilities").json();
        assertTrue(caps.path("features").path("mcp_server").asBoolean(), caps.path("features").toString());
        assertEquals("/mcp", caps.path("endpoints").path("mcp").path("path").asText(), caps.path("endpoints").toString());
        assertEquals("POST", caps.path("endpoints").path("mcp").path("method").asText());
    }

    private static com.fasterxml.jackson.databind.JsonNode tool(com.fasterxml.jackson.databind.JsonNode list, String name) {
        for (var t : list.path("result").path("tools")) if (t.path("name").asText().equals(name)) return t;
        throw new AssertionError("no tool " + name + " in " + list);
    }
}
