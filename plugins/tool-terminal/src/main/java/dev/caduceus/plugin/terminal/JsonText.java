package dev.caduceus.plugin.terminal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes tool results the way Hermes does ({@code json.dumps(..., ensure_ascii=False)}): separators
 * {@code ", "} and {@code ": "}, non-ASCII characters unescaped. Values are
 * {@link Map} (insertion order kept), {@link List}, {@link CharSequence}, {@link Number},
 * {@link Boolean} or null. Stateless.
 */
final class JsonText {
    /** Turns maps, lists and scalars into a tree; the SPI's {@code ToolJson} writes it as Hermes does. */
    private static final com.fasterxml.jackson.databind.ObjectMapper TREE = new com.fasterxml.jackson.databind.ObjectMapper();

    private JsonText() {}

    /** An insertion-ordered map from alternating keys and values. */
    static Map<String, Object> obj(Object... keyValues) {
        var map = new LinkedHashMap<String, Object>();
        for (int i = 0; i + 1 < keyValues.length; i += 2) map.put((String) keyValues[i], keyValues[i + 1]);
        return map;
    }

    static String write(Object value) {
        return dev.caduceus.support.json.ToolJson.compact(TREE.valueToTree(value));
    }
}
