package dev.caduceus.plugin.mcpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

/** The family is off with its plugin: /mcp does not exist and the capabilities say so. */
class DisabledFamilyTest {

    @Test
    void aDisabledFamilyIs404AndItsFeatureReadsFalse() {
        try (var mcp = McpHost.start(b -> b.env("CADUCEUS__PLUGINS__DISABLED", "endpoint-mcp"))) {
            var response = mcp.post(mcp.http, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
            assertEquals(404, response.status(), response.body());
            assertEquals("not_found", response.error().path("code").asText(), response.body());
            var caps = mcp.http.get("/v1/capabilities").json();
            assertFalse(caps.path("features").path("mcp_server").asBoolean(true), caps.path("features").toString());
            assertFalse(caps.path("endpoints").has("mcp"), caps.path("endpoints").toString());
        }
    }
}
