package dev.caduceus.plugin.terminal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Reads tool arguments after the host's coercion: a present value of the wrong
 * type is an {@link IllegalArgumentException} whose message becomes the {@code {"error": …}}
 * result; absent and {@code null} mean "use the default". Stateless.
 */
final class Args {
    private Args() {}

    /** The Python type name Hermes reports for a JSON value ({@code str}, {@code int}, {@code NoneType}, …). */
    static String typeName(JsonNode node) {
        if (node == null || node.isMissingNode() || node.isNull()) return "NoneType";
        if (node.isTextual()) return "str";
        if (node.isBoolean()) return "bool";
        if (node.isIntegralNumber()) return "int";
        if (node.isNumber()) return "float";
        if (node.isArray()) return "list";
        return "dict";
    }

    static boolean absent(ObjectNode args, String name) {
        var node = args.get(name);
        return node == null || node.isNull();
    }

    static String string(ObjectNode args, String name, String dflt) {
        if (absent(args, name)) return dflt;
        var node = args.get(name);
        if (!node.isTextual()) throw wrongType(name, "string", node);
        return node.asText();
    }

    static boolean bool(ObjectNode args, String name, boolean dflt) {
        if (absent(args, name)) return dflt;
        var node = args.get(name);
        if (!node.isBoolean()) throw wrongType(name, "boolean", node);
        return node.asBoolean();
    }

    /** An integer of at least {@code min}, or {@code dflt} when absent. */
    static Integer integer(ObjectNode args, String name, Integer dflt, int min) {
        if (absent(args, name)) return dflt;
        var node = args.get(name);
        if (!node.isIntegralNumber() || !node.canConvertToInt()) throw wrongType(name, "integer", node);
        if (node.asInt() < min) throw new IllegalArgumentException("Invalid " + name + ": must be at least " + min);
        return node.asInt();
    }

    private static IllegalArgumentException wrongType(String name, String expected, JsonNode node) {
        return new IllegalArgumentException("Invalid " + name + ": expected " + expected + ", got " + typeName(node));
    }
}
