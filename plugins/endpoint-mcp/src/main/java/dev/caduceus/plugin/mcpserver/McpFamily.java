package dev.caduceus.plugin.mcpserver;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;

/**
 * The {@code mcp} family: {@code POST /mcp} (capability name {@code mcp}). {@code GET} and
 * {@code DELETE} are not registered, so the host answers them 405 with {@code Allow: POST}: a stateless
 * server opens no SSE stream and has no session to end. Disabled with its plugin, or per key
 * ({@code caduceus key add NAME --families …}). Immutable.
 */
record McpFamily(HttpHandler handler, McpServerSettings settings) implements EndpointFamily {
    static final String PATH = "/mcp";

    @Override public String id() { return "mcp"; }

    @Override public String basePath() { return PATH; }

    @Override
    public void routes(Routes routes) {
        routes.post(PATH, "mcp", handler);
    }

    @Override
    public ObjectNode features() {
        var features = JsonNodeFactory.instance.objectNode().put("mcp_server", true);
        features.putObject("mcp").put("path", PATH).put("transport", "streamable_http").put("stateless", true)
                .put("agent_tool", settings.agentTool());
        return features;
    }
}
