package dev.caduceus.plugin.memory;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.IOException;

/**
 * Writes results the way Hermes' {@code json.dumps(..., ensure_ascii=False)} does (tools.md §3.3):
 * separators {@code ", "} and {@code ": "}, non-ASCII characters unescaped. Thread-safe.
 */
final class HermesJson {
    private final ObjectWriter writer;

    HermesJson(ObjectMapper mapper) {
        this.writer = mapper.writer(new PythonSeparators());
    }

    String write(JsonNode node) {
        try {
            return writer.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON tree", e);
        }
    }

    /** One line, Python's default separators. */
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
