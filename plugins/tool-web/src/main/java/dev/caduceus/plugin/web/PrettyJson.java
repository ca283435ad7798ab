package dev.caduceus.plugin.web;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Web results as Hermes' web tools return them: Python's {@code json.dumps(value, indent=2,
 * ensure_ascii=False)}, written by plugin-support's shared {@code ToolJson}. Stateless.
 */
final class PrettyJson {
    /** What a web tool returns when its run is interrupted, on one line as Hermes writes it. */
    static final String INTERRUPTED = "{\"error\": \"Interrupted\", \"success\": false}";

    private PrettyJson() {}

    static String write(JsonNode node) {
        return dev.caduceus.support.json.ToolJson.indented(node);
    }
}
