package dev.caduceus.plugin.terminal;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes tool results the way Hermes does ({@code json.dumps(..., ensure_ascii=False)}): separators
 * {@code ", "} and {@code ": "}, non-ASCII characters unescaped (tools.md §3.3). Values are
 * {@link Map} (insertion order kept), {@link List}, {@link CharSequence}, {@link Number},
 * {@link Boolean} or null. Stateless.
 */
final class JsonText {
    private JsonText() {}

    /** An insertion-ordered map from alternating keys and values. */
    static Map<String, Object> obj(Object... keyValues) {
        var map = new LinkedHashMap<String, Object>();
        for (int i = 0; i + 1 < keyValues.length; i += 2) map.put((String) keyValues[i], keyValues[i + 1]);
        return map;
    }

    static String write(Object value) {
        var out = new StringBuilder();
        append(out, value);
        return out.toString();
    }

    private static void append(StringBuilder out, Object value) {
        switch (value) {
            case null -> out.append("null");
            case Map<?, ?> map -> {
                out.append('{');
                Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
                while (it.hasNext()) {
                    var e = it.next();
                    string(out, String.valueOf(e.getKey()));
                    out.append(": ");
                    append(out, e.getValue());
                    if (it.hasNext()) out.append(", ");
                }
                out.append('}');
            }
            case List<?> list -> {
                out.append('[');
                for (int i = 0; i < list.size(); i++) {
                    if (i > 0) out.append(", ");
                    append(out, list.get(i));
                }
                out.append(']');
            }
            case CharSequence s -> string(out, s);
            case Number n -> out.append(n);
            case Boolean b -> out.append(b);
            default -> string(out, value.toString());
        }
    }

    private static void string(StringBuilder out, CharSequence s) {
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
