package dev.caduceus.plugin.chat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.support.clienttools.ToolTranscript;
import dev.caduceus.support.wire.ContentNormalizer;
import java.util.ArrayList;
import java.util.List;

/**
 * Tool calls in a chat history as the wire has them: an assistant message's {@code tool_calls} and the {@code tool}
 * messages that answer them ({@link ToolTranscript} pairs them). Stateless.
 */
final class ToolTurns {
    private ToolTurns() {}

    /** An assistant message's {@code tool_calls} (absent or null: none). */
    static List<Message.ToolCallRef> calls(JsonNode node, String param) {
        if (node == null || node.isNull()) return List.of();
        if (!node.isArray()) throw invalid("Invalid '" + param + "': expected an array.", param);
        var calls = new ArrayList<Message.ToolCallRef>();
        for (int i = 0; i < node.size(); i++) {
            var call = node.get(i);
            var at = param + "[" + i + "]";
            var function = call.path("function");
            if (!call.path("id").isTextual() || call.path("id").asText().isEmpty())
                throw invalid("Invalid '" + at + ".id': expected a non-empty string.", at + ".id");
            if (!function.path("name").isTextual())
                throw invalid("Invalid '" + at + ".function.name': expected a string.", at + ".function.name");
            var arguments = function.get("arguments");
            if (arguments != null && !arguments.isNull() && !arguments.isTextual() && !arguments.isObject())
                throw invalid("Invalid '" + at + ".function.arguments': expected a JSON string.", at + ".function.arguments");
            calls.add(new Message.ToolCallRef(call.get("id").asText(), function.get("name").asText(),
                    ToolTranscript.arguments(arguments)));
        }
        return calls;
    }

    /** A {@code tool} message: its {@code tool_call_id} and its content as text. */
    static Message result(JsonNode message, String param) {
        var id = message.get("tool_call_id");
        if (id == null || !id.isTextual() || id.asText().isEmpty())
            throw ApiError.badRequest("missing_required_parameter", "Missing required parameter: '" + param
                    + ".tool_call_id'.", param + ".tool_call_id").exception();
        var text = ContentNormalizer.flattenText(message.get("content"));
        var name = message.path("name").isTextual() ? message.get("name").asText() : null;
        return new Message("tool", List.of(new ContentPart.Text(text)), List.of(), id.asText(), name);
    }

    private static RuntimeException invalid(String message, String param) {
        return ApiError.badRequest("invalid_value", message, param).exception();
    }
}
