package dev.caduceus.platform.batch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Map;

/**
 * JSON text exactly as Python's {@code json.dumps(..., ensure_ascii=False)} writes it, which is what
 * Hermes' files and their downstream converters expect: {@link #line} with the default separators
 * {@code ", "} and {@code ": "}, {@link #indented} with {@code indent=2}; non-ASCII unescaped, empty
 * containers as {@code {}} and {@code []}. Stateless.
 */
final class PyJson {
    private static final ObjectMapper SCALARS = new ObjectMapper();

    private PyJson() {}

    /** One line, {@code ", "} / {@code ": "} separators. */
    static String line(JsonNode node) {
        var out = new StringBuilder();
        write(out, node, -1, 0);
        return out.toString();
    }

    /** Indented by 2 as {@code json.dump(indent=2)}. */
    static String indented(JsonNode node) {
        var out = new StringBuilder();
        write(out, node, 2, 0);
        return out.toString();
    }

    /** A JSON string literal. */
    static String string(String s) {
        return scalar(TextNode.valueOf(s));
    }

    private static void write(StringBuilder out, JsonNode node, int indent, int depth) {
        if (node.isObject()) {
            if (node.isEmpty()) {
                out.append("{}");
                return;
            }
            out.append('{');
            boolean first = true;
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                if (!first) out.append(indent < 0 ? ", " : ",");
                first = false;
                newline(out, indent, depth + 1);
                out.append(string(e.getKey())).append(": ");
                write(out, e.getValue(), indent, depth + 1);
            }
            newline(out, indent, depth);
            out.append('}');
        } else if (node.isArray()) {
            if (node.isEmpty()) {
                out.append("[]");
                return;
            }
            out.append('[');
            boolean first = true;
            for (var element : node) {
                if (!first) out.append(indent < 0 ? ", " : ",");
                first = false;
                newline(out, indent, depth + 1);
                write(out, element, indent, depth + 1);
            }
            newline(out, indent, depth);
            out.append(']');
        } else {
            out.append(scalar(node));
        }
    }

    private static void newline(StringBuilder out, int indent, int depth) {
        if (indent < 0) return;
        out.append('\n').append(" ".repeat(indent * depth));
    }

    private static String scalar(JsonNode node) {
        try {
            return SCALARS.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
