package dev.caduceus.platform.runtime.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Coerces a model's tool arguments against the tool's JSON schema before dispatch,
 * because models often send {@code "42"} for an integer or a JSON-encoded string for a list: numeric
 * strings become numbers (an integer-typed value with decimals stays a string; {@code inf}/{@code nan}
 * are refused), {@code "true"}/{@code "false"} become booleans, strings holding JSON become arrays or
 * objects where the schema expects one (kept on failure), {@code "null"} becomes null for nullable
 * types, union types are tried in order, and a bare value for an array is wrapped in a list. Values
 * the schema does not describe are left alone; the tool validates what it receives. Stateless.
 */
final class ArgumentCoercion {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ArgumentCoercion() {}

    /** A coerced copy of {@code arguments}; {@code arguments} itself is not changed. */
    static ObjectNode coerce(ObjectNode arguments, JsonNode schema) {
        var coerced = coerceValue(arguments.deepCopy(), schema);
        return coerced instanceof ObjectNode object ? object : arguments.deepCopy();
    }

    private static JsonNode coerceValue(JsonNode value, JsonNode schema) {
        if (schema == null || !schema.isObject() || value == null) return value;
        var types = types(schema);
        if (types.isEmpty()) return containers(value, schema);
        for (var type : types) {
            if (matches(value, type)) return containers(value, schema);
        }
        for (var type : types) {
            var converted = convert(value, type, types.contains("null"));
            if (converted != null) return containers(converted, schema);
        }
        return value;
    }

    /** Recurses into object properties and array items. */
    private static JsonNode containers(JsonNode value, JsonNode schema) {
        if (value instanceof ObjectNode object && schema.path("properties").isObject()) {
            var properties = schema.get("properties");
            var names = new ArrayList<String>();
            object.fieldNames().forEachRemaining(names::add);
            for (var name : names)
                if (properties.has(name)) object.set(name, coerceValue(object.get(name), properties.get(name)));
        } else if (value instanceof ArrayNode array && schema.path("items").isObject()) {
            for (int i = 0; i < array.size(); i++) array.set(i, coerceValue(array.get(i), schema.get("items")));
        }
        return value;
    }

    private static List<String> types(JsonNode schema) {
        var type = schema.get("type");
        var out = new ArrayList<String>();
        if (type == null) return out;
        if (type.isTextual()) out.add(type.asText());
        else if (type.isArray()) type.forEach(t -> out.add(t.asText()));
        return out;
    }

    private static boolean matches(JsonNode value, String type) {
        return switch (type) {
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            case "array" -> value.isArray();
            case "object" -> value.isObject();
            case "null" -> value.isNull();
            default -> false;
        };
    }

    /** {@code value} converted to {@code type}, or null when it cannot be. */
    private static JsonNode convert(JsonNode value, String type, boolean nullable) {
        if (value.isTextual() && nullable && value.asText().strip().equals("null")) return NODES.nullNode();
        var text = value.isTextual() ? value.asText().strip() : null;
        return switch (type) {
            case "integer" -> text == null ? null : integer(text);
            case "number" -> text == null ? null : number(text);
            case "boolean" -> text == null ? null : bool(text);
            case "array" -> array(value, text);
            case "object" -> text == null ? null : parsed(text, true);
            case "string" -> value.isNumber() || value.isBoolean() ? NODES.textNode(value.asText()) : null;
            default -> null;
        };
    }

    private static JsonNode integer(String text) {
        if (!text.matches("[-+]?\\d+")) return null;
        try {
            return NODES.numberNode(new BigDecimal(text).toBigIntegerExact());
        } catch (ArithmeticException | NumberFormatException e) {
            return null;
        }
    }

    private static JsonNode number(String text) {
        var lower = text.toLowerCase(Locale.ROOT);
        if (lower.contains("inf") || lower.contains("nan")) return null;
        try {
            var decimal = new BigDecimal(text);
            return decimal.scale() <= 0 ? NODES.numberNode(decimal.toBigIntegerExact()) : NODES.numberNode(decimal);
        } catch (ArithmeticException | NumberFormatException e) {
            return null;
        }
    }

    private static JsonNode bool(String text) {
        if (text.equalsIgnoreCase("true")) return NODES.booleanNode(true);
        if (text.equalsIgnoreCase("false")) return NODES.booleanNode(false);
        return null;
    }

    private static JsonNode array(JsonNode value, String text) {
        if (text != null) {
            var parsed = parsed(text, false);
            if (parsed != null) return parsed;
        }
        if (value.isArray() || value.isNull()) return null;
        return NODES.arrayNode().add(value);
    }

    private static JsonNode parsed(String text, boolean object) {
        try {
            var node = JSON.readTree(text);
            if (node == null) return null;
            return object ? (node.isObject() ? node : null) : (node.isArray() ? node : null);
        } catch (JsonProcessingException e) {
            return null;
        }
    }
}
