package dev.caduceus.support.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.util.RawValue;

/**
 * Writes tool results byte-compatible with Hermes (so datasets match), which produces them with Python's
 * {@code json.dumps(..., ensure_ascii=False)}: {@link #compact} uses the separators {@code ", "} and
 * {@code ": "} on one line; {@link #indented} is {@code indent=2} (web tools). Non-ASCII characters
 * stay unescaped; only the quote, the backslash and control characters are escaped; floats are
 * written as Python's {@code repr} writes them ({@link #pythonFloat}). Stateless and
 * thread-safe; every tool plugin shares this one writer so datasets stay byte-identical.
 */
public final class ToolJson {
    private ToolJson() {}

    /** One line, {@code ", "} and {@code ": "} separators. */
    public static String compact(JsonNode node) {
        var out = new StringBuilder();
        write(node, out, -1);
        return out.toString();
    }

    /**
     * {@code value} written {@link #compact} once, as a node that {@link #compact} copies verbatim wherever it is
     * placed: for a large part that many documents share (batch trajectories' system entry), so it is not written
     * and escaped again for each. Meant for compact output ({@link #indented} copies it verbatim too, unindented).
     */
    public static JsonNode prewritten(JsonNode value) {
        return JsonNodeFactory.instance.rawValueNode(new RawValue(compact(value)));
    }

    /** Two-space indentation, {@code ": "} after keys, empty containers as {@code []}/{@code {}}. */
    public static String indented(JsonNode node) {
        var out = new StringBuilder();
        write(node, out, 0);
        return out.toString();
    }

    /** {@code depth < 0}: compact; otherwise the current indentation depth. */
    private static void write(JsonNode node, StringBuilder out, int depth) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            out.append("null");
        } else if (node.isObject()) {
            if (node.isEmpty()) { out.append("{}"); return; }
            out.append('{');
            boolean first = true;
            for (var field : node.properties()) {
                separator(out, depth, first);
                first = false;
                string(field.getKey(), out);
                out.append(": ");
                write(field.getValue(), out, depth < 0 ? -1 : depth + 1);
            }
            close(out, depth, '}');
        } else if (node.isArray()) {
            if (node.isEmpty()) { out.append("[]"); return; }
            out.append('[');
            for (int i = 0; i < node.size(); i++) {
                separator(out, depth, i == 0);
                write(node.get(i), out, depth < 0 ? -1 : depth + 1);
            }
            close(out, depth, ']');
        } else if (node.isTextual()) {
            string(node.textValue(), out);
        } else if (node instanceof POJONode pojo && pojo.getPojo() instanceof RawValue raw) {
            out.append(raw.rawValue());
        } else if (node.isFloatingPointNumber()) {
            out.append(pythonFloat(node.doubleValue()));
        } else {
            // Integers and booleans. asText, not toString: toString serializes through a Jackson
            // generator made for the call, which cost a third of a batch run's time on tool_stats.
            out.append(node.isNumber() || node.isBoolean() ? node.asText() : node.toString());
        }
    }

    /**
     * A float as Python's {@code repr} writes it: the shortest digits that read back the same,
     * positional from 1e-4 up to (not including) 1e16 with at least one decimal ({@code 100.0}),
     * otherwise {@code 1.5e-05} / {@code 1e+16}; {@code NaN}, {@code Infinity}, {@code -Infinity}.
     */
    public static String pythonFloat(double x) {
        if (Double.isNaN(x)) return "NaN";
        if (Double.isInfinite(x)) return x > 0 ? "Infinity" : "-Infinity";
        if (x == 0) return (1 / x < 0) ? "-0.0" : "0.0";
        var exact = new java.math.BigDecimal(Double.toString(x)).stripTrailingZeros();
        if (exact.precision() == 2) {
            // Double.toString writes at least two digits (4.9E-324); Python's repr the shortest (5e-324).
            var one = new java.math.BigDecimal(x).round(new java.math.MathContext(1, java.math.RoundingMode.HALF_EVEN));
            if (one.doubleValue() == x) exact = one.stripTrailingZeros();
        }
        int exponent = exact.precision() - exact.scale() - 1;
        if (exponent >= -4 && exponent < 16) {
            var plain = exact.toPlainString();
            return plain.contains(".") ? plain : plain + ".0";
        }
        var digits = exact.unscaledValue().abs().toString();
        var sb = new StringBuilder();
        if (exact.signum() < 0) sb.append('-');
        sb.append(digits.charAt(0));
        if (digits.length() > 1) sb.append('.').append(digits, 1, digits.length());
        sb.append('e').append(exponent < 0 ? '-' : '+');
        int abs = Math.abs(exponent);
        if (abs < 10) sb.append('0');
        return sb.append(abs).toString();
    }

    private static void separator(StringBuilder out, int depth, boolean first) {
        if (depth < 0) {
            if (!first) out.append(", ");
            return;
        }
        out.append(first ? "\n" : ",\n").append("  ".repeat(depth + 1));
    }

    private static void close(StringBuilder out, int depth, char bracket) {
        if (depth >= 0) out.append('\n').append("  ".repeat(depth));
        out.append(bracket);
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        int plain = 0; // characters from here on are copied as they are, in one append per run
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') continue;
            out.append(s, plain, i);
            plain = i + 1;
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> out.append(String.format("\\u%04x", (int) c));
            }
        }
        out.append(s, plain, s.length()).append('"');
    }
}
