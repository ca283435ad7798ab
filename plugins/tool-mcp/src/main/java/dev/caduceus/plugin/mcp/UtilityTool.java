package dev.caduceus.plugin.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolSpec;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Hermes' four utility tools of a server with resources or prompts: {@code list_resources},
 * {@code read_resource(uri)}, {@code list_prompts} and {@code get_prompt(name, arguments)}. Lists are
 * answered as JSON, a resource as its text (placeholders for blobs), a prompt as its messages, one
 * {@code role: text} per line. Immutable; thread-safe.
 */
final class UtilityTool implements Tool {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

    /** The four utilities. */
    enum Kind {
        LIST_RESOURCES("list_resources", true), READ_RESOURCE("read_resource", true),
        LIST_PROMPTS("list_prompts", false), GET_PROMPT("get_prompt", false);

        private final String suffix;
        private final boolean resources;

        Kind(String suffix, boolean resources) {
            this.suffix = suffix;
            this.resources = resources;
        }

        String suffix() {
            return suffix;
        }

        /** Whether it belongs to the resources family (else prompts). */
        boolean resources() {
            return resources;
        }

        String description(String server) {
            return switch (this) {
                case LIST_RESOURCES -> "List available resources from MCP server '" + server + "'";
                case READ_RESOURCE -> "Read a resource by URI from MCP server '" + server + "'";
                case LIST_PROMPTS -> "List available prompts from MCP server '" + server + "'";
                case GET_PROMPT -> "Get a prompt by name from MCP server '" + server + "'";
            };
        }

        ObjectNode parameters() {
            var schema = JsonNodeFactory.instance.objectNode().put("type", "object");
            var properties = schema.putObject("properties");
            switch (this) {
                case READ_RESOURCE -> {
                    properties.putObject("uri").put("type", "string").put("description", "URI of the resource to read");
                    schema.putArray("required").add("uri");
                }
                case GET_PROMPT -> {
                    properties.putObject("name").put("type", "string").put("description", "Name of the prompt to retrieve");
                    var arguments = properties.putObject("arguments").put("type", "object")
                            .put("description", "Optional arguments to pass to the prompt");
                    arguments.putObject("properties");
                    arguments.put("additionalProperties", true);
                    schema.putArray("required").add("name");
                }
                default -> { }
            }
            return schema;
        }
    }

    private final ServerLink link;
    private final Kind kind;
    private final ToolSpec spec;
    private final ObjectMapper json;

    UtilityTool(ServerLink link, Kind kind, ToolSpec spec, ObjectMapper json) {
        this.link = link;
        this.kind = kind;
        this.spec = spec;
        this.json = json;
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public ToolResult call(ToolCall call, ToolContext ctx) throws Exception {
        var args = call.arguments();
        return switch (kind) {
            case LIST_RESOURCES -> link.call("list_resources", null, c -> c.client().listResources(), ctx,
                    result -> new ToolResult.Ok(toJson(result.resources())));
            case READ_RESOURCE -> {
                String uri = args.path("uri").asText("");
                if (uri.isBlank()) yield new ToolResult.Error("read_resource needs a uri", false);
                yield link.call("read_resource " + uri, null,
                        c -> c.client().readResource(new McpSchema.ReadResourceRequest(uri, null)), ctx,
                        result -> new ToolResult.Ok(result.contents().stream().map(ResultText::resource)
                                .collect(Collectors.joining("\n"))));
            }
            case LIST_PROMPTS -> link.call("list_prompts", null, c -> c.client().listPrompts(), ctx,
                    result -> new ToolResult.Ok(toJson(result.prompts())));
            case GET_PROMPT -> {
                String name = args.path("name").asText("");
                if (name.isBlank()) yield new ToolResult.Error("get_prompt needs a name", false);
                Map<String, Object> arguments = args.path("arguments").isObject()
                        ? json.convertValue(args.get("arguments"), MAP) : Map.of();
                yield link.call("get_prompt " + name, null,
                        c -> c.client().getPrompt(new McpSchema.GetPromptRequest(name, arguments, null)), ctx,
                        result -> new ToolResult.Ok(result.messages().stream()
                                .map(m -> (m.role() == null ? "" : m.role().name().toLowerCase(java.util.Locale.ROOT))
                                        + ": " + ResultText.part(m.content()))
                                .collect(Collectors.joining("\n"))));
            }
        };
    }

    private String toJson(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            return String.valueOf(value);
        }
    }
}
