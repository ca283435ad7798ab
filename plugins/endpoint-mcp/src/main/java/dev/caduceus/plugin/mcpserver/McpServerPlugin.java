package dev.caduceus.plugin.mcpserver;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.support.services.ToolCalls;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.config.PluginConfig.Setting;
import dev.caduceus.spi.http.EndpointFamily;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpStatelessSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;

/**
 * Caduceus as an MCP server: contributes the {@code mcp} family ({@code POST /mcp}), which serves this
 * deployment's tools to MCP clients (streamable HTTP, stateless) with the same bearer keys as the rest
 * of the API, and optionally the tool {@code agent} that runs a whole agent turn. Built on the official
 * Java SDK's stateless server ({@code McpServer.sync(transport)}), shaded into this jar, with our
 * {@link ExchangeTransport} and {@link CallerTools}.
 *
 * <p>Lifecycle: one instance per boot; {@link #endpoints} builds the server once on the boot thread,
 * {@link #stop} closes it (later requests get 503).
 */
public final class McpServerPlugin implements PlatformPlugin {
    /** The server's name in {@code initialize}. */
    static final String SERVER_NAME = "caduceus";

    private volatile McpStatelessSyncServer server;

    @Override
    public List<Setting> settings() {
        return McpServerSettings.ALL;
    }

    @Override
    public List<EndpointFamily> endpoints(PlatformContext ctx) {
        var settings = McpServerSettings.from(ctx);
        var mapper = new ObjectMapper(); // as the SDK's own Jackson 2 mapper supplier makes it
        var transport = new ExchangeTransport(mapper);
        server = McpServer.sync(transport)
                .serverInfo(SERVER_NAME, ctx.global().version())
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .jsonMapper(new JacksonMcpJsonMapper(mapper))
                .jsonSchemaValidator(new NoSchemaValidation())
                .build();
        var agent = settings.agentTool() ? new AgentTool(ctx::runs, settings.toolsets(), mapper) : null;
        transport.decorate(sdk -> new CallerTools(sdk, () -> ctx.service(ToolCalls.class).orElseThrow(
                () -> new IllegalStateException("the host offers no direct tool calls")), settings.toolsets(), agent, mapper));
        return List.of(new McpFamily(transport, settings));
    }

    @Override
    public void stop() {
        var running = server;
        if (running != null) running.closeGracefully();
    }

    /**
     * The SDK checks the schemas of the tools registered with it, and validates structured output;
     * no tool is registered with it here (ours are listed per caller, and the host checks arguments),
     * so this passes everything. Its default, a networknt validator, is left out of the jar.
     */
    private static final class NoSchemaValidation implements JsonSchemaValidator {
        @Override
        public ValidationResponse validate(Map<String, Object> schema, Object structuredContent) {
            return ValidationResponse.asValid(null);
        }
    }
}
