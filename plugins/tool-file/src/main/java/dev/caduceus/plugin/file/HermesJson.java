package dev.caduceus.plugin.file;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.tool.ToolResult;
import java.io.IOException;

/**
 * Writes tool results the way Hermes' {@code json.dumps(..., ensure_ascii=False)} does: separators
 * {@code ", "} and {@code ": "}, non-ASCII characters unescaped (tools.md §3.3). Immutable; thread-safe.
 */
final class HermesJson {
    private static final ObjectWriter WRITER = new ObjectMapper().writer(new PythonSeparators());

    private HermesJson() {}

    /** A new empty object node. */
    static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** The node as Hermes-compatible JSON text. */
    static String write(ObjectNode node) {
        try {
            return WRITER.writeValueAsString(node);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialize a tree node", e);
        }
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

    /** Python's default separators, on one line. */
    private static final class PythonSeparators extends MinimalPrettyPrinter {
        @Override
        public void writeObjectFieldValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw(": ");
        }

        @Override
        public void writeObjectEntrySeparator(JsonGenerator g) throws IOException {
            g.writeRaw(", ");
        }

        @Override
        public void writeArrayValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw(", ");
        }
    }
}
