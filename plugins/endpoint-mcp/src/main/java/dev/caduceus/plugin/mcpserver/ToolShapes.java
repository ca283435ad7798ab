package dev.caduceus.plugin.mcpserver;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;

/**
 * Our tools in MCP's terms: a {@link ToolSpec} as an MCP {@code Tool} (name, description and input
 * schema as the spec gives them, and hints from its {@link ToolRisk}), a {@link ToolResult} as a
 * {@code CallToolResult} (text content; an error result has {@code isError: true} and the message).
 * Stateless; thread-safe.
 */
final class ToolShapes {
    private final ObjectMapper mapper;

    ToolShapes(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @SuppressWarnings("unchecked")
    McpSchema.Tool tool(ToolSpec spec) {
        Map<String, Object> schema = mapper.convertValue(spec.parameters(), Map.class);
        return new McpSchema.Tool(spec.name(), null, spec.description(), schema, null, hints(spec.risk()), null, null);
    }

    /** What a client may assume: only a read-only tool is read-only; one that runs programs may destroy. */
    private static McpSchema.ToolAnnotations hints(ToolRisk risk) {
        var hints = McpSchema.ToolAnnotations.builder().readOnlyHint(risk == ToolRisk.READ_ONLY);
        switch (risk) {
            case READ_ONLY -> hints.destructiveHint(false).openWorldHint(false);
            case WRITES_WORKSPACE -> hints.openWorldHint(false);
            case EXECUTES -> hints.destructiveHint(true);
            case NETWORK -> hints.destructiveHint(false).openWorldHint(true);
        }
        return hints.build();
    }

    static McpSchema.CallToolResult result(ToolResult result) {
        return switch (result) {
            case ToolResult.Ok ok -> text(ok.content(), false);
            case ToolResult.Error error -> text(error.message(), true);
        };
    }

    static McpSchema.CallToolResult text(String text, boolean error) {
        return McpSchema.CallToolResult.builder(List.of(new McpSchema.TextContent(text))).isError(error).build();
    }
}
