package dev.caduceus.plugin.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Optional;

/**
 * A server's {@code inputSchema} as the model's parameters. Passed on as given, with Hermes' two
 * repairs: an empty schema becomes {@code {"type":"object","properties":{}}}, and an {@code object}
 * schema without {@code properties} (or without {@code type}) gets an empty one (and {@code object}). A schema that is not an object schema (its
 * {@code type} is something else, or its {@code properties} is not a mapping) is malformed: the
 * caller replaces it by the empty object schema and warns, so the tool stays callable without
 * arguments rather than making the provider reject the whole request. Stateless.
 */
final class InputSchemas {
    private InputSchemas() {}

    /** The empty object schema. */
    static ObjectNode empty() {
        var schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        schema.putObject("properties");
        return schema;
    }

    /** The parameters for {@code schema}, or empty when it is malformed. */
    static Optional<ObjectNode> parameters(Map<String, Object> schema, ObjectMapper json) {
        if (schema == null || schema.isEmpty()) return Optional.of(empty());
        ObjectNode node;
        try {
            node = json.valueToTree(schema);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        var type = node.get("type");
        if (type == null) {
            node.put("type", "object");
        } else if (!type.isTextual() || !type.asText().equals("object")) {
            return Optional.empty();
        }
        var properties = node.get("properties");
        if (properties == null || properties.isNull()) node.putObject("properties");
        else if (!properties.isObject()) return Optional.empty();
        return Optional.of(node);
    }
}
