package dev.caduceus.plugin.memory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.support.json.ToolJson;

/**
 * Writes results the way Hermes' {@code json.dumps(..., ensure_ascii=False)} does,
 * through plugin-support's shared {@link ToolJson}. Thread-safe.
 */
final class HermesJson {
    HermesJson(ObjectMapper mapper) {
        // the mapper is kept in the signature for callers that build nodes with it
    }

    String write(JsonNode node) {
        return ToolJson.compact(node);
    }
}
