package dev.caduceus.plugin.file;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The syntax check reported after writes: {@code .json} files are parsed with
 * Jackson. YAML is not checked: plugins may depend only on the SPI, which brings no YAML parser.
 * Stateless.
 */
final class Lint {
    private static final JsonFactory JSON = new JsonFactory();

    private Lint() {}

    /** {@code {"status": "ok"}} or {@code {"status": "error", "message"}} for a JSON file; null for other files. */
    static ObjectNode check(Path file, String content) {
        var name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (!name.endsWith(".json")) return null;
        try (var parser = JSON.createParser(content)) {
            while (parser.nextToken() != null) {
                // reading every token validates the whole document
            }
            return HermesJson.object().put("status", "ok");
        } catch (IOException e) {
            return HermesJson.object().put("status", "error").put("message",
                    e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage());
        }
    }
}
