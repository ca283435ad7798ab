package dev.caduceus.plugin.web;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Web results as Hermes' web tools return them: Python's {@code json.dumps(value, indent=2,
 * ensure_ascii=False)} (tools.md §3.3), written by the SPI's shared {@code ToolJson}. Stateless.
 */
final class PrettyJson {
    /** The interrupt result of tools.md §2.6/§8.1, on one line as Hermes writes it. */
    static final String INTERRUPTED = "{\"error\": \"Interrupted\", \"success\": false}";

    private PrettyJson() {}

    static String write(JsonNode node) {
        return dev.caduceus.support.json.ToolJson.indented(node);
    }
}
