package dev.caduceus.plugin.openai;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What one non-streamed {@code chat.completion} carries for its events: its first choice's message
 * (reasoning, text parts, tool calls) and finish reason, and the usage. Read from the answer's bytes
 * token by token: only the tool calls and the usage become trees, so the rest of the answer (ids,
 * other choices, log probabilities) is checked and skipped, not built. Where a field repeats, the last
 * one counts, as in a tree.
 *
 * @param choice       whether the first choice is an object (without one the answer is unusable)
 * @param reasoning    {@code reasoning_content}, else {@code reasoning}, when a string; else null
 * @param texts        the content: the one string, or each part's {@code text}, in order
 * @param toolCalls    the {@code tool_calls} entries, as trees, in order
 * @param finishReason the choice's finish reason; {@code stop} when it is missing or null
 * @param usage        the {@code usage} object; null when absent or not an object
 */
record Completion(boolean choice, String reasoning, List<String> texts, List<JsonNode> toolCalls,
                  String finishReason, JsonNode usage) {

    /** What {@link #read} reads the tool calls and the usage with: {@code json}'s settings, in the middle of a document. */
    static ObjectReader trees(ObjectMapper json) {
        return json.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    /**
     * @param trees from {@link #trees}
     * @throws com.fasterxml.jackson.core.JsonProcessingException when the bytes are not one JSON value
     */
    static Completion read(ObjectReader trees, byte[] raw) throws IOException {
        try (var parser = trees.createParser(raw)) {
            var reader = new Reader(trees, parser);
            if (parser.nextToken() == JsonToken.START_OBJECT) reader.answer();
            else parser.skipChildren();
            if (parser.currentToken() != null && parser.nextToken() != null)
                throw new JsonParseException(parser, "Unexpected content after the answer");
            return reader.result();
        }
    }

    private static final class Reader {
        private final ObjectReader json;
        private final JsonParser p;
        private boolean choice;
        private String reasoningContent;
        private String reasoning;
        private List<String> texts = List.of();
        private List<JsonNode> toolCalls = List.of();
        private String finishReason = "stop";
        private JsonNode usage;

        Reader(ObjectReader json, JsonParser p) {
            this.json = json;
            this.p = p;
        }

        Completion result() {
            return new Completion(choice, reasoningContent != null ? reasoningContent : reasoning, texts, toolCalls,
                    finishReason, usage);
        }

        void answer() throws IOException {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "choices" -> choices(value);
                    case "usage" -> usage = value == JsonToken.START_OBJECT ? json.readTree(p) : skip();
                    default -> p.skipChildren();
                }
            }
        }

        private void choices(JsonToken value) throws IOException {
            choice = false;
            reasoningContent = reasoning = null;
            texts = List.of();
            toolCalls = List.of();
            finishReason = "stop";
            if (value != JsonToken.START_ARRAY) {
                p.skipChildren();
                return;
            }
            JsonToken first = p.nextToken();
            if (first == JsonToken.END_ARRAY) return;
            if (first == JsonToken.START_OBJECT) {
                choice = true;
                choice();
            } else {
                p.skipChildren();
            }
            while (p.nextToken() != JsonToken.END_ARRAY) p.skipChildren(); // the other choices
        }

        private void choice() throws IOException {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "message" -> message(value);
                    case "finish_reason" -> finishReason = switch (value) {
                        case VALUE_NULL -> "stop";
                        case START_OBJECT, START_ARRAY -> {
                            p.skipChildren();
                            yield "";
                        }
                        default -> p.getText();
                    };
                    default -> p.skipChildren();
                }
            }
        }

        private void message(JsonToken value) throws IOException {
            reasoningContent = reasoning = null;
            texts = List.of();
            toolCalls = List.of();
            if (value != JsonToken.START_OBJECT) {
                p.skipChildren();
                return;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken field = p.nextToken();
                switch (name) {
                    case "content" -> texts = content(field);
                    case "reasoning_content" -> reasoningContent = field == JsonToken.VALUE_STRING ? p.getText() : skip();
                    case "reasoning" -> reasoning = field == JsonToken.VALUE_STRING ? p.getText() : skip();
                    case "tool_calls" -> toolCalls = toolCalls(field);
                    default -> p.skipChildren();
                }
            }
        }

        /** A string, or the parts' texts (an object's values count as parts, as a tree iterates them). */
        private List<String> content(JsonToken value) throws IOException {
            if (value == JsonToken.VALUE_STRING) return List.of(p.getText());
            if (value != JsonToken.START_ARRAY && value != JsonToken.START_OBJECT) return List.of();
            var parts = new ArrayList<String>(2);
            for (JsonToken part = nextElement(value); part != null; part = nextElement(value)) {
                if (part != JsonToken.START_OBJECT) {
                    p.skipChildren();
                    continue;
                }
                String text = null;
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    boolean isText = "text".equals(p.currentName());
                    JsonToken v = p.nextToken();
                    if (isText) text = v == JsonToken.VALUE_STRING ? p.getText() : skip();
                    else p.skipChildren();
                }
                if (text != null) parts.add(text);
            }
            return parts;
        }

        private List<JsonNode> toolCalls(JsonToken value) throws IOException {
            if (value != JsonToken.START_ARRAY && value != JsonToken.START_OBJECT) return List.of();
            var calls = new ArrayList<JsonNode>(2);
            for (JsonToken call = nextElement(value); call != null; call = nextElement(value)) calls.add(json.readTree(p));
            return calls;
        }

        /** The next array element's or object value's first token; null at the container's end. */
        private JsonToken nextElement(JsonToken container) throws IOException {
            JsonToken t = p.nextToken();
            if (container == JsonToken.START_OBJECT) {
                if (t != JsonToken.FIELD_NAME) return null;
                t = p.nextToken();
            }
            return t == JsonToken.END_ARRAY || t == JsonToken.END_OBJECT ? null : t;
        }

        private <T> T skip() throws IOException {
            p.skipChildren();
            return null;
        }
    }
}
