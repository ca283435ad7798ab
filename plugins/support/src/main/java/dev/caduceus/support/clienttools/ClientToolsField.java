package dev.caduceus.support.clienttools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.RunRequest.ClientTools;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpStatusException;
import dev.caduceus.spi.model.ModelRequest.ToolChoice;
import dev.caduceus.spi.tool.ToolSpec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * A request's own functions, {@code tool_choice} and {@code parallel_tool_calls}, in the Chat Completions shape
 * ({@code {"type":"function","function":{"name",…}}}, a named choice {@code {"type":"function","function":{"name"}}})
 * or the Responses shape ({@code {"type":"function","name",…}}, a named choice {@code {"type":"function","name"}}),
 * checked as OpenAI checks them: at most {@value #MAX_TOOLS} tools, names matching {@code ^[a-zA-Z0-9_-]{1,64}$} and
 * unique, a parameters object that is a JSON Schema of an object. A name equal to one of the host's tools is refused
 * (the model could not tell them apart). Every problem is a 400 in OpenAI's error shape whose {@code param} names the
 * tool. Stateless.
 */
public final class ClientToolsField {
    /** OpenAI's limit on a request's tools. */
    public static final int MAX_TOOLS = 128;
    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");
    private static final Set<String> TYPES = Set.of("string", "number", "integer", "boolean", "object", "array", "null");
    private static final int MAX_DEPTH = 64;

    /** Where the fields of one tool are: nested under {@code function} (chat) or on the tool itself (Responses). */
    public enum Shape {
        CHAT("function"),
        RESPONSES(null);

        private final String nest;

        Shape(String nest) {
            this.nest = nest;
        }

        /** The shape of {@code body}'s tools: Chat Completions' when the first names a {@code function} object. */
        public static Shape of(JsonNode body) {
            return body.path("tools").path(0).path("function").isObject() ? CHAT : RESPONSES;
        }
    }

    private ClientToolsField() {}

    /**
     * The client tools of {@code body} ({@link ClientTools#NONE} when it names none and leaves {@code tool_choice}
     * and {@code parallel_tool_calls} alone).
     *
     * @param hostTool whether a name is one of the host's own tools
     */
    public static ClientTools parse(JsonNode body, Shape shape, Predicate<String> hostTool) {
        var tools = new ArrayList<ToolSpec>();
        var node = body.get("tools");
        if (node != null && !node.isNull()) {
            if (!node.isArray()) throw invalid("invalid_type", "Invalid 'tools': expected an array of tools.", "tools");
            if (node.size() > MAX_TOOLS)
                throw invalid("array_above_max_length", "Invalid 'tools': array too long. Expected an array with maximum "
                        + "length " + MAX_TOOLS + ", but got an array with length " + node.size() + " instead.", "tools");
            var names = new HashSet<String>();
            for (int i = 0; i < node.size(); i++) tools.add(tool(node.get(i), "tools[" + i + "]", shape, hostTool, names));
        }
        var choice = choice(body.get("tool_choice"), shape, names(tools), hostTool);
        var parallel = body.get("parallel_tool_calls");
        Boolean parallelCalls = null;
        if (parallel != null && !parallel.isNull()) {
            if (!parallel.isBoolean())
                throw invalid("invalid_type", "Invalid 'parallel_tool_calls': expected a boolean.", "parallel_tool_calls");
            parallelCalls = parallel.booleanValue();
        }
        var result = new ClientTools(tools, choice, parallelCalls);
        return result.isEmpty() ? ClientTools.NONE : result;
    }

    /**
     * Writes {@code choice} (unless {@code auto}, the default) and {@code parallel} (unless null) into a Chat Completions
     * request {@code body}, as OpenAI spells them.
     */
    public static void writeChoice(ObjectNode body, ToolChoice choice, Boolean parallel) {
        var json = choiceJson(choice);
        if (json != null) body.set("tool_choice", json);
        if (parallel != null) body.put("parallel_tool_calls", parallel);
    }

    /** {@code choice} as a Chat Completions request's {@code tool_choice} spells it; null for {@code auto}, the default. */
    public static JsonNode choiceJson(ToolChoice choice) {
        return switch (choice) {
            case ToolChoice.Auto auto -> null;
            case ToolChoice.None none -> JsonNodeFactory.instance.textNode("none");
            case ToolChoice.Required required -> JsonNodeFactory.instance.textNode("required");
            case ToolChoice.Named named -> {
                var node = JsonNodeFactory.instance.objectNode().put("type", "function");
                node.putObject("function").put("name", named.name());
                yield node;
            }
        };
    }

    private static ToolSpec tool(JsonNode tool, String at, Shape shape, Predicate<String> hostTool, Set<String> names) {
        if (tool == null || !tool.isObject()) throw invalid("invalid_type", "Invalid '" + at + "': expected an object.", at);
        var type = tool.path("type").asText("");
        if (!type.equals("function"))
            throw invalid("unsupported_tool_type", "Invalid '" + at + ".type': only tools of type 'function' are "
                    + "accepted (the server runs its own tools), got '" + type + "'.", at + ".type");
        var fields = shape.nest == null ? tool : tool.get(shape.nest);
        var prefix = shape.nest == null ? at : at + "." + shape.nest;
        if (fields == null || !fields.isObject())
            throw invalid("missing_required_parameter", "Missing required parameter: '" + prefix + "'.", prefix);
        var nameNode = fields.get("name");
        if (nameNode == null || !nameNode.isTextual())
            throw invalid("missing_required_parameter", "Missing required parameter: '" + prefix + ".name'.", prefix + ".name");
        var name = nameNode.asText();
        if (!NAME.matcher(name).matches())
            throw invalid("invalid_value", "Invalid '" + prefix + ".name': string does not match pattern. Expected a "
                    + "string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$', got '" + shorten(name) + "'.", prefix + ".name");
        if (hostTool.test(name))
            throw invalid("tool_name_conflict", "Invalid '" + prefix + ".name': '" + name + "' is the name of one of "
                    + "this server's own tools; give your function another name.", prefix + ".name");
        if (!names.add(name))
            throw invalid("duplicate_tool_name", "Invalid '" + prefix + ".name': the name '" + name
                    + "' is used by more than one tool.", prefix + ".name");
        var description = fields.get("description");
        if (description != null && !description.isNull() && !description.isTextual())
            throw invalid("invalid_type", "Invalid '" + prefix + ".description': expected a string.", prefix + ".description");
        var parameters = fields.get("parameters");
        ObjectNode schema;
        if (parameters == null || parameters.isNull()) {
            schema = JsonNodeFactory.instance.objectNode().put("type", "object");
            schema.putObject("properties");
        } else {
            var problem = schemaProblem(parameters, 0, true);
            if (problem != null)
                throw invalid("invalid_function_parameters", "Invalid schema for function '" + name + "' in '" + prefix
                        + ".parameters': " + problem, prefix + ".parameters");
            schema = (ObjectNode) parameters;
        }
        return ToolSpec.builder(name, description == null || description.isNull() ? "" : description.asText())
                .parameters(schema).toolset(ClientTools.TOOLSET).build();
    }

    private static ToolChoice choice(JsonNode node, Shape shape, Set<String> clientNames, Predicate<String> hostTool) {
        if (node == null || node.isNull()) return ToolChoice.AUTO;
        if (node.isTextual()) {
            return switch (node.asText()) {
                case "auto" -> ToolChoice.AUTO;
                case "none" -> ToolChoice.NONE;
                case "required" -> ToolChoice.REQUIRED;
                default -> throw invalid("invalid_value", "Invalid value for 'tool_choice': expected 'none', 'auto', "
                        + "'required' or a named function, got '" + shorten(node.asText()) + "'.", "tool_choice");
            };
        }
        if (node.isObject() && node.path("type").asText("").equals("function")) {
            var fields = shape.nest == null ? node : node.path(shape.nest);
            var name = fields.path("name");
            var param = shape.nest == null ? "tool_choice.name" : "tool_choice." + shape.nest + ".name";
            if (!name.isTextual())
                throw invalid("missing_required_parameter", "Missing required parameter: '" + param + "'.", param);
            if (!clientNames.contains(name.asText()) && !hostTool.test(name.asText()))
                throw invalid("invalid_value", "Invalid '" + param + "': no tool named '" + shorten(name.asText())
                        + "' is offered (neither in 'tools' nor one of the server's).", param);
            return new ToolChoice.Named(name.asText());
        }
        throw invalid("invalid_value", "Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or "
                + "{\"type\": \"function\", …}.", "tool_choice");
    }

    /** What is wrong with {@code schema} as a JSON Schema (of an object at the top), or null. */
    private static String schemaProblem(JsonNode schema, int depth, boolean top) {
        if (depth > MAX_DEPTH) return "nested deeper than " + MAX_DEPTH + " levels.";
        if (!top && schema.isBoolean()) return null;
        if (!schema.isObject()) return top ? "the parameters must be a JSON Schema object." : "a schema must be an object or a boolean.";
        var type = schema.get("type");
        if (type != null) {
            if (type.isTextual()) {
                if (!TYPES.contains(type.asText())) return "unknown type '" + shorten(type.asText()) + "'.";
                if (top && !type.asText().equals("object")) return "the parameters must be of type 'object', got '" + type.asText() + "'.";
            } else if (type.isArray() && !top) {
                for (var t : type) if (!t.isTextual() || !TYPES.contains(t.asText())) return "'type' lists an unknown type.";
            } else {
                return "'type' must be " + (top ? "'object'." : "a type name or a list of them.");
            }
        }
        var properties = schema.get("properties");
        if (properties != null) {
            if (!properties.isObject()) return "'properties' must be an object.";
            for (var property : properties.properties()) {
                var problem = schemaProblem(property.getValue(), depth + 1, false);
                if (problem != null) return "property '" + shorten(property.getKey()) + "': " + problem;
            }
        }
        var required = schema.get("required");
        if (required != null) {
            if (!required.isArray()) return "'required' must be an array of property names.";
            for (var r : required) if (!r.isTextual()) return "'required' must be an array of property names.";
        }
        var items = schema.get("items");
        if (items != null) {
            if (items.isArray()) {
                for (var item : items) {
                    var problem = schemaProblem(item, depth + 1, false);
                    if (problem != null) return "'items': " + problem;
                }
            } else {
                var problem = schemaProblem(items, depth + 1, false);
                if (problem != null) return "'items': " + problem;
            }
        }
        var additional = schema.get("additionalProperties");
        if (additional != null) {
            var problem = schemaProblem(additional, depth + 1, false);
            if (problem != null) return "'additionalProperties': " + problem;
        }
        var values = schema.get("enum");
        if (values != null && !values.isArray()) return "'enum' must be an array.";
        for (var combinator : new String[] {"anyOf", "oneOf", "allOf"}) {
            var list = schema.get(combinator);
            if (list == null) continue;
            if (!list.isArray() || list.isEmpty()) return "'" + combinator + "' must be a non-empty array of schemas.";
            for (var sub : list) {
                var problem = schemaProblem(sub, depth + 1, false);
                if (problem != null) return "'" + combinator + "': " + problem;
            }
        }
        for (var definitions : new String[] {"$defs", "definitions"}) {
            var defs = schema.get(definitions);
            if (defs == null) continue;
            if (!defs.isObject()) return "'" + definitions + "' must be an object.";
            for (var def : defs.properties()) {
                var problem = schemaProblem(def.getValue(), depth + 1, false);
                if (problem != null) return "'" + definitions + "." + shorten(def.getKey()) + "': " + problem;
            }
        }
        return null;
    }

    private static Set<String> names(java.util.List<ToolSpec> tools) {
        var names = new HashSet<String>();
        tools.forEach(t -> names.add(t.name()));
        return names;
    }

    private static String shorten(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "…";
    }

    private static HttpStatusException invalid(String code, String message, String param) {
        return ApiError.badRequest(code, message, param).exception();
    }
}
