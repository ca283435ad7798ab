package dev.caduceus.plugin.mcpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** /mcp behind the host's bearer keys and their policies: families and toolsets. */
class KeysTest {
    static McpHost mcp;

    @BeforeAll
    static void boot() {
        mcp = McpHost.start();
    }

    @AfterAll
    static void close() {
        mcp.close();
    }

    private static final String PING = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";

    @Test
    void noKeyOrAWrongKeyIsTheHosts401InJson() {
        for (var client : List.of(mcp.http.withoutKey(), mcp.http.withKey("not-a-key-of-this-server-at-all"))) {
            var response = mcp.post(client, PING);
            assertEquals(401, response.status(), response.body());
            assertEquals("gateway_auth_failed", response.error().path("code").asText(), response.body());
            assertTrue(response.header("Content-Type").orElse("").startsWith("application/json"));
        }
    }

    @Test
    void aNamedKeyCallsWithItsOwnNameAndAKeyWithoutTheFamilyGets404() {
        var tenant = mcp.http.withKey(mcp.host.addKey("mcp-user", "mcp"));
        assertEquals(200, mcp.post(tenant, PING).status());
        var chatOnly = mcp.http.withKey(mcp.host.addKey("chat-only", "chat"));
        var response = mcp.post(chatOnly, PING);
        assertEquals(404, response.status(), response.body());
        assertEquals("not_found", response.error().path("code").asText(), response.body());
    }

    @Test
    void aKeyLimitedToSomeToolsetsIsOfferedAndMayCallOnlyTheirTools() {
        var fileOnly = mcp.http.withKey(mcp.host.addKeyWithToolsets("file-only", List.of("file")));
        var names = McpHost.names(mcp.request(fileOnly, "tools/list", null));
        assertTrue(names.containsAll(List.of("read_file", "write_file", "search_files", "patch")), names.toString());
        assertFalse(names.contains("terminal") || names.contains("process"), names.toString());
        var terminal = mcp.request(fileOnly, "tools/call", "{\"name\":\"terminal\",\"arguments\":{\"command\":\"echo hi\"}}");
        assertEquals(-32602, terminal.path("error").path("code").asInt(), terminal.toString());
        var admin = McpHost.names(mcp.request("tools/list", null));
        assertTrue(admin.contains("terminal"), admin.toString());
    }
}
