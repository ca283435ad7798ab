package dev.caduceus.plugin.file;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Reads the arguments of one call. The host has already coerced them against the schema (numbers,
 * booleans, lists sent as strings), so this only checks presence and type. Immutable.
 */
record Args(ObjectNode node) {

    /** A string argument; null when missing, null or not a string. */
    String string(String name) {
        JsonNode v = node.get(name);
        return v != null && v.isTextual() ? v.asText() : null;
    }

    /** Whether the argument is present and not JSON null. */
    boolean has(String name) {
        JsonNode v = node.get(name);
        return v != null && !v.isNull();
    }

    /** An integer argument, or {@code fallback} when missing or not an integer. */
    int integer(String name, int fallback) {
        JsonNode v = node.get(name);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToInt()) return fallback;
        return v.asInt();
    }

    /** A boolean argument, or {@code fallback} when missing or not a boolean. */
    boolean bool(String name, boolean fallback) {
        JsonNode v = node.get(name);
        return v != null && v.isBoolean() ? v.asBoolean() : fallback;
    }

    /** The type of a present argument that is not a string, for error messages; null when fine or missing. */
    String wrongType(String name, String expected) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) return null;
        boolean ok = switch (expected) {
            case "string" -> v.isTextual();
            case "integer" -> v.isIntegralNumber();
            case "boolean" -> v.isBoolean();
            default -> true;
        };
        return ok ? null : name + " must be " + (expected.equals("integer") ? "an " : "a ") + expected
                + ", got " + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    }
}
