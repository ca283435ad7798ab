package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.support.wire.ContentNormalizer;
import java.util.List;

/**
 * The guidance of {@code POST /v1/runs/{run_id}/steer}: the first of {@code input},
 * {@code message} and {@code text} that holds non-blank text, as a string or a text-part array
 * (text parts joined with {@code \n}, other parts dropped); trimmed and cut at 65,536 chars. None
 * is a 400 {@code invalid_steer_input}. Stateless.
 */
final class SteerText {
    private static final List<String> FIELDS = List.of("input", "message", "text");

    private SteerText() {}

    static String from(JsonNode body) {
        for (var field : FIELDS) {
            var node = body.get(field);
            String text = node == null ? "" : node.isTextual() ? node.asText()
                    : node.isArray() ? ContentNormalizer.flattenText(node) : "";
            if (!text.isBlank()) return TextLimit.cut(text.strip(), ContentNormalizer.MAX_TEXT);
        }
        throw RunErrors.badRequest("invalid_steer_input",
                "Missing non-empty steer text; expected 'input', 'message', or 'text'.", null);
    }
}
