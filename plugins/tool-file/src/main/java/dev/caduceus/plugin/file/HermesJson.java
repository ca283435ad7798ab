package dev.caduceus.plugin.file;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.support.json.ToolJson;
import dev.caduceus.spi.tool.ToolResult;

/**
 * Tool results as Hermes writes them, through plugin-support's shared {@link ToolJson}, plus
 * the plugin's Ok/Error conventions. Stateless.
 */
final class HermesJson {
    private HermesJson() {}

    /** A new empty object node. */
    static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** The node as Hermes-compatible JSON text. */
    static String write(ObjectNode node) {
        return ToolJson.compact(node);
    }

    /** {@code Ok} carrying the node's JSON. */
    static ToolResult ok(ObjectNode node) {
        return new ToolResult.Ok(write(node));
    }

    /** A tool-level failure: {@code Error} for a bare {@code {"error": …}}, else {@code Ok} with the richer object. */
    static ToolResult failure(ToolFailure f) {
        var r = f.result();
        if (r.size() == 1 && r.has("error")) return new ToolResult.Error(r.get("error").asText(), false);
        return ok(r);
    }

    /** {@code {"error": message}} plus whatever the caller adds: for errors with extra fields. */
    static ObjectNode error(String message) {
        return object().put("error", message);
    }

}
