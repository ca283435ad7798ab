package dev.caduceus.plugin.mcpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The plugin's settings: the toolsets served ({@code plugins.endpoint-mcp.toolsets}) and the agent tool
 * off; and with {@code approvals.mode: off} a dangerous command runs, as it would on chat.
 */
class ConfiguredServerTest {

    @Test
    void onlyTheConfiguredToolsetsAreServedWithoutTheAgentToolAndApprovalsOffLetADangerousCommandRun() throws Exception {
        var yaml = """
                approvals:
                  mode: "off"
                plugins:
                  endpoint-mcp:
                    toolsets: [terminal]
                    agent_tool: false
                """;
        try (var mcp = McpHost.start(b -> b.configYaml(yaml))) {
            var names = McpHost.names(mcp.request("tools/list", null));
            assertEquals(List.of("process", "terminal"), names.stream().sorted().toList());
            var agent = mcp.request("tools/call", "{\"name\":\"agent\",\"arguments\":{\"prompt\":\"hi\"}}");
            assertEquals(-32602, agent.path("error").path("code").asInt(), agent.toString());
            var dir = Files.createDirectories(mcp.host.home().getParent().resolve("workspace").resolve("scratch"));
            Files.writeString(dir.resolve("file.txt"), "to go");
            var result = mcp.call("terminal", "{\"command\":\"rm -rf scratch\"}");
            assertFalse(result.path("isError").asBoolean(), result.toString());
            assertTrue(Files.notExists(dir), "approvals are off: the command ran " + result);
            var caps = mcp.http.get("/v1/capabilities").json().path("features");
            assertFalse(caps.path("mcp").path("agent_tool").asBoolean(true), caps.toString());
        }
    }
}
