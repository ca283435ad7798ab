package dev.caduceus.plugin.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a server's tool list into agent tools: the {@code tools:} filter applied to the server's
 * names, Hermes' names ({@link ToolNames}), the input schema as given ({@link InputSchemas}; a
 * malformed one is replaced by the empty object schema, with a warning), the description (or
 * {@code MCP tool NAME from SERVER}), {@code supports_parallel_tool_calls} as
 * {@link ToolSpec#parallelSafe()}, and the resource and prompt utility tools when the server has those
 * capabilities and the filter allows them.
 *
 * <p>Threading: thread-safe. Lifecycle: one per plugin start.
 */
final class ServerTools {
    private static final Logger log = LoggerFactory.getLogger(ServerTools.class);

    private final ObjectMapper json;
    private final McpJsonMapper mcpJson;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    ServerTools(ObjectMapper json, McpJsonMapper mcpJson) {
        this.json = json;
        this.mcpJson = mcpJson;
    }

    ObjectMapper json() {
        return json;
    }

    McpJsonMapper mcpJson() {
        return mcpJson;
    }

    /** The agent tools of {@code link} for this tool list and these capabilities. */
    List<Tool> build(ServerLink link, McpSchema.ServerCapabilities capabilities, List<McpSchema.Tool> listed) {
        var server = link.config();
        var out = new ArrayList<Tool>();
        var names = new LinkedHashSet<String>();
        for (var tool : listed) {
            if (!server.filter().allows(tool.name())) continue;
            String name = ToolNames.tool(server.name(), tool.name());
            if (!names.add(name)) {
                warnOnce(server.name() + "/dup/" + name, "MCP server '{}': tool '{}' has the same name as another of its "
                        + "tools once sanitized ({}); it is left out", server.name(), tool.name(), name);
                continue;
            }
            var parameters = InputSchemas.parameters(tool.inputSchema(), json).orElseGet(() -> {
                warnOnce(server.name() + "/schema/" + tool.name(), "MCP server '{}': tool '{}' has a malformed input "
                        + "schema (not an object schema); it is offered with no parameters", server.name(), tool.name());
                return InputSchemas.empty();
            });
            String description = tool.description() == null || tool.description().isBlank()
                    ? "MCP tool " + tool.name() + " from " + server.name() : tool.description();
            var spec = spec(server, name, description).parameters(parameters)
                    .risk(readOnly(tool) ? ToolRisk.READ_ONLY : server.stdio() ? ToolRisk.EXECUTES : ToolRisk.NETWORK)
                    .repeatable(readOnly(tool) || idempotent(tool))
                    .build();
            out.add(new McpTool(link, tool.name(), spec, json));
        }
        for (var utility : UtilityTool.Kind.values()) {
            boolean offered = utility.resources()
                    ? capabilities.resources() != null && server.filter().resources()
                    : capabilities.prompts() != null && server.filter().prompts();
            if (!offered) continue;
            String name = ToolNames.tool(server.name(), utility.suffix());
            if (!names.add(name)) continue; // the server's own tool of that name wins
            var spec = spec(server, name, utility.description(server.name()))
                    .parameters(utility.parameters()).repeatable(true).build(); // listing and reading: no effect
            out.add(new UtilityTool(link, utility, spec, json));
        }
        return out;
    }

    private static ToolSpec.Builder spec(ServerConfig server, String name, String description) {
        return ToolSpec.builder(name, description).toolset(ToolNames.toolset(server.name()))
                .parallelSafe(server.parallelSafe()).emoji("🔌");
    }

    private static boolean readOnly(McpSchema.Tool tool) {
        return tool.annotations() != null && Boolean.TRUE.equals(tool.annotations().readOnlyHint());
    }

    /** Whether the server says a repeated call with the same arguments has no further effect ({@code idempotentHint}). */
    private static boolean idempotent(McpSchema.Tool tool) {
        return tool.annotations() != null && Boolean.TRUE.equals(tool.annotations().idempotentHint());
    }

    private void warnOnce(String key, String format, Object... args) {
        if (warned.add(key)) log.warn(format, args);
    }
}
