package dev.caduceus.plugin.web;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Writes JSON exactly as Python's {@code json.dumps(value, indent=2, ensure_ascii=False)} does, which
 * is what Hermes' web tools return (tools.md §3.3): two-space indent, {@code ": "} after keys, empty
 * containers as {@code []}/{@code {}}, non-ASCII unescaped. Stateless.
 */
final class PrettyJson {
    /** The interrupt result of tools.md §2.6/§8.1, on one line as Hermes writes it. */
    static final String INTERRUPTED = "{\"error\": \"Interrupted\", \"success\": false}";

    private PrettyJson() {}

    static String write(JsonNode node) {
        var out = new StringBuilder();
        write(node, out, 0);
        return out.toString();
    }

    private static void write(JsonNode node, StringBuilder out, int depth) {
        if (node.isObject()) {
            if (node.isEmpty()) { out.append("{}"); return; }
            out.append('{');
            boolean first = true;
            for (var field : node.properties()) {
                out.append(first ? "\n" : ",\n");
                first = false;
                indent(out, depth + 1);
                string(field.getKey(), out);
                out.append(": ");
                write(field.getValue(), out, depth + 1);
            }
            out.append('\n');
            indent(out, depth);
            out.append('}');
        } else if (node.isArray()) {
            if (node.isEmpty()) { out.append("[]"); return; }
            out.append('[');
            for (int i = 0; i < node.size(); i++) {
                out.append(i == 0 ? "\n" : ",\n");
                indent(out, depth + 1);
                write(node.get(i), out, depth + 1);
            }
            out.append('\n');
            indent(out, depth);
            out.append(']');
        } else if (node.isTextual()) {
            string(node.textValue(), out);
        } else if (node.isMissingNode()) {
            out.append("null");
        } else {
            out.append(node.toString()); // numbers, booleans, null
        }
    }

    private static void indent(StringBuilder out, int depth) {
        out.append("  ".repeat(depth));
    }

    /** A JSON string with Python's escapes: quote, backslash and control characters only. */
    static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
            }
        }
        out.append('"');
    }
}
