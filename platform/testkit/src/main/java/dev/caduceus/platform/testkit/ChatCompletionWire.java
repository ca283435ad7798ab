package dev.caduceus.platform.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders a {@link Turn} in OpenAI's chat-completions wire format: the SSE {@code data:} payloads of
 * a streamed answer, the one JSON of a non-streamed answer, and error bodies. Stateless apart from the
 * shared (thread-safe) mapper.
 */
final class ChatCompletionWire {
    private final ObjectMapper json;

    ChatCompletionWire(ObjectMapper json) {
        this.json = json;
    }

    /** The payloads of every {@code data:} event, ending with {@code [DONE]}. */
    List<String> streamEvents(Turn turn, String id, long created, String model, boolean includeUsage) {
        var events = new ArrayList<String>();
        var first = json.createObjectNode().put("role", "assistant").put("content", "");
        events.add(chunk(id, created, model, first, null));
        for (var piece : turn.reasoning())
            events.add(chunk(id, created, model, json.createObjectNode().put("reasoning_content", piece), null));
        for (var piece : turn.text())
            events.add(chunk(id, created, model, json.createObjectNode().put("content", piece), null));
        for (int index = 0; index < turn.toolCalls().size(); index++) {
            var call = turn.toolCalls().get(index);
            var pieces = call.argumentPieces();
            for (int p = 0; p < pieces.size(); p++) {
                var entry = json.createObjectNode().put("index", index);
                var function = json.createObjectNode();
                if (p == 0) {
                    if (call.id() != null) entry.put("id", call.id());
                    entry.put("type", "function");
                    function.put("name", call.name());
                }
                function.put("arguments", pieces.get(p));
                entry.set("function", function);
                var delta = json.createObjectNode();
                delta.putArray("tool_calls").add(entry);
                events.add(chunk(id, created, model, delta, null));
            }
        }
        events.add(chunk(id, created, model, json.createObjectNode(), turn.effectiveFinishReason()));
        if (includeUsage) {
            var usage = base(id, created, model, "chat.completion.chunk");
            usage.putArray("choices");
            usage.set("usage", usage(turn));
            events.add(usage.toString());
        }
        events.add("[DONE]");
        return events;
    }

    /** The non-streamed {@code chat.completion} answer. */
    String completion(Turn turn, String id, long created, String model) {
        var message = json.createObjectNode().put("role", "assistant");
        if (turn.text().isEmpty()) message.putNull("content");
        else message.put("content", turn.content());
        if (!turn.reasoning().isEmpty()) message.put("reasoning_content", String.join("", turn.reasoning()));
        if (!turn.toolCalls().isEmpty()) {
            ArrayNode calls = message.putArray("tool_calls");
            for (var call : turn.toolCalls()) {
                var entry = calls.addObject();
                if (call.id() != null) entry.put("id", call.id());
                entry.put("type", "function");
                entry.putObject("function").put("name", call.name()).put("arguments", call.arguments());
            }
        }
        var body = base(id, created, model, "chat.completion");
        var choice = body.putArray("choices").addObject().put("index", 0);
        choice.set("message", message);
        choice.put("finish_reason", turn.effectiveFinishReason());
        body.set("usage", usage(turn));
        return body.toString();
    }

    /** An OpenAI error body. */
    String error(int status, String message) {
        var body = json.createObjectNode();
        var error = body.putObject("error").put("message", message).put("type", errorType(status));
        if (status == 429) error.put("code", "rate_limit_exceeded");
        else error.putNull("code");
        return body.toString();
    }

    /** The {@code GET /v1/models} answer. */
    String models(String model) {
        var body = json.createObjectNode().put("object", "list");
        body.putArray("data").addObject().put("id", model).put("object", "model").put("created", 0)
                .put("owned_by", "scripted-upstream");
        return body.toString();
    }

    private String chunk(String id, long created, String model, ObjectNode delta, String finishReason) {
        var body = base(id, created, model, "chat.completion.chunk");
        var choice = body.putArray("choices").addObject().put("index", 0);
        choice.set("delta", delta);
        if (finishReason == null) choice.putNull("finish_reason");
        else choice.put("finish_reason", finishReason);
        return body.toString();
    }

    private ObjectNode base(String id, long created, String model, String object) {
        return json.createObjectNode().put("id", id).put("object", object).put("created", created).put("model", model);
    }

    private ObjectNode usage(Turn turn) {
        var usage = turn.usage() == null ? new Turn.Usage(0, 0) : turn.usage();
        var node = json.createObjectNode().put("prompt_tokens", usage.promptTokens())
                .put("completion_tokens", usage.completionTokens()).put("total_tokens", usage.totalTokens());
        if (usage.reasoningTokens() != 0)
            node.putObject("completion_tokens_details").put("reasoning_tokens", usage.reasoningTokens());
        if (usage.cachedTokens() != 0)
            node.putObject("prompt_tokens_details").put("cached_tokens", usage.cachedTokens());
        return node;
    }

    private static String errorType(int status) {
        return switch (status) {
            case 401, 403 -> "authentication_error";
            case 429 -> "rate_limit_error";
            default -> status >= 500 ? "server_error" : "invalid_request_error";
        };
    }
}
