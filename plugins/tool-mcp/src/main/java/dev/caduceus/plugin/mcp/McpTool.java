package dev.caduceus.plugin.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolSpec;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.UUID;

/**
 * One tool of an MCP server, as the agent sees it: {@code tools/call} with the model's arguments; the
 * content becomes the result text ({@link ResultText}), and an {@code isError} result an error result
 * with that text. Immutable; thread-safe (calls may run at once).
 */
final class McpTool implements Tool {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

    private final ServerLink link;
    private final String mcpName;
    private final ToolSpec spec;
    private final ObjectMapper json;

    McpTool(ServerLink link, String mcpName, ToolSpec spec, ObjectMapper json) {
        this.link = link;
        this.mcpName = mcpName;
        this.spec = spec;
        this.json = json;
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public ToolResult call(ToolCall call, ToolContext ctx) throws Exception {
        Map<String, Object> arguments = json.convertValue(call.arguments(), MAP);
        String token = UUID.randomUUID().toString();
        var request = new McpSchema.CallToolRequest(mcpName, arguments, Map.of(CancellingTransport.TOKEN, token));
        return link.call("tool '" + mcpName + "'", token, c -> c.client().callTool(request), ctx, result -> {
            String text = ResultText.of(result.content(), result.structuredContent(), json);
            if (Boolean.TRUE.equals(result.isError()))
                return new ToolResult.Error(text.isBlank() ? "the MCP tool reported an error" : text, false);
            return new ToolResult.Ok(text);
        });
    }
}
