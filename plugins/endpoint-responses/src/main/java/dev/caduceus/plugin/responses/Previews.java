package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.message.Message;
import java.util.List;

/**
 * The {@code input_preview} and {@code output_preview} of a listed response: plain text (text parts
 * only, every run of whitespace one space, trimmed) of at most {@value #MAX} characters (code points;
 * a longer text is cut and ends with {@code …}). Null when there is no text. Stateless.
 */
final class Previews {
    static final int MAX = 200;

    private Previews() {}

    /** The turn's last user input among {@code inputs} (its input messages), else its last input. */
    static String input(List<Message> inputs) {
        for (int i = inputs.size() - 1; i >= 0; i--)
            if (inputs.get(i).role().equals("user")) return text(inputs.get(i).text());
        return inputs.isEmpty() ? null : text(inputs.getLast().text());
    }

    /** The final assistant text of a response object: its last {@code message} item's text, if any. */
    static String output(JsonNode envelope) {
        var output = envelope.path("output");
        for (int i = output.size() - 1; i >= 0; i--) {
            var item = output.get(i);
            if (!"message".equals(item.path("type").asText())) continue;
            var text = new StringBuilder();
            for (var part : item.path("content")) if (part.path("text").isTextual()) text.append(part.get("text").asText());
            return text(text.toString());
        }
        return null;
    }

    /** {@code raw} as preview text; null for null or blank. */
    static String text(String raw) {
        if (raw == null) return null;
        var plain = raw.replaceAll("(?U)\\s+", " ").strip();
        if (plain.isEmpty()) return null;
        if (plain.codePointCount(0, plain.length()) <= MAX) return plain;
        return plain.substring(0, plain.offsetByCodePoints(0, MAX - 1)).stripTrailing() + "…";
    }
}
