package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;

/**
 * The size rules of the {@code response.completed} event only (it carries the whole output, so it is kept small): string
 * arguments {@code content}, {@code query}, {@code pattern}, {@code old_string}, {@code new_string}
 * longer than 500 chars become a marker, and tool output texts longer than 1000 chars are cut to
 * 500 plus a count. Stateless; returns copies.
 */
final class CompletedTruncation {
    private static final Set<String> LONG_ARGUMENTS = Set.of("content", "query", "pattern", "old_string", "new_string");
    private static final int ARGUMENT_LIMIT = 500;
    private static final int OUTPUT_LIMIT = 1000;
    private static final int OUTPUT_KEEP = 500;
    private static final ObjectMapper JSON = new ObjectMapper();

    private CompletedTruncation() {}

    static ObjectNode apply(ObjectNode envelope) {
        var copy = envelope.deepCopy();
        for (var item : copy.path("output")) {
            var type = item.path("type").asText();
            if (type.equals("function_call")) shortenArguments((ObjectNode) item);
            else if (type.equals("function_call_output")) shortenOutput((ObjectNode) item);
            else if (type.equals("mcp_call")) {
                shortenArguments((ObjectNode) item);
                shortenOutput((ObjectNode) item);
            }
        }
        return copy;
    }

    private static void shortenArguments(ObjectNode item) {
        JsonNode args;
        try {
            args = JSON.readTree(item.path("arguments").asText(""));
        } catch (Exception e) {
            return; // not JSON: left as is
        }
        if (!(args instanceof ObjectNode object)) return;
        boolean changed = false;
        for (var name : LONG_ARGUMENTS) {
            var value = object.get(name);
            if (value != null && value.isTextual() && value.asText().length() > ARGUMENT_LIMIT) {
                object.put(name, "[" + value.asText().length() + " chars — truncated for response.completed]");
                changed = true;
            }
        }
        if (changed) item.put("arguments", object.toString());
    }

    private static void shortenOutput(ObjectNode item) {
        var output = item.get("output");
        if (output == null) return;
        if (output.isArray()) {
            for (var part : output) {
                var text = part.path("text").asText("");
                if (text.length() > OUTPUT_LIMIT) ((ObjectNode) part).put("text", shorten(text));
            }
        } else if (output.isTextual() && output.asText().length() > OUTPUT_LIMIT) {
            item.put("output", shorten(output.asText()));
        }
    }

    private static String shorten(String text) {
        return text.substring(0, OUTPUT_KEEP) + "...[" + (text.length() - OUTPUT_KEEP) + " more chars]";
    }
}
