package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.ApiError;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The items a caller adds to a conversation ({@code POST /v1/conversations} and {@code …/items}), validated and
 * put in the shape they are listed in: a {@code message} ({@code role} user, assistant, system or developer; a
 * string {@code content} becomes one {@code input_text} part, or {@code output_text} for the assistant; status
 * {@code completed}), a {@code function_call} ({@code call_id}, {@code name}, {@code arguments}), a
 * {@code function_call_output} ({@code call_id}, {@code output}); the server's own {@code mcp_call} and
 * {@code reasoning} items are taken as they are. Each gets an id ({@code msg_}, {@code fc_}, {@code fco_},
 * {@code mcp_}, {@code rs_} + 24 hex) unless it has one. At most {@link #MAX_ITEMS} per call; every problem is a 400
 * naming the field. Stateless.
 */
final class ConversationItems {
    static final int MAX_ITEMS = 20;
    private static final Set<String> ROLES = Set.of("user", "assistant", "system", "developer");

    private ConversationItems() {}

    /** {@code items} (absent or null: none) as stored; {@code field} names it in errors ({@code items}). */
    static List<ObjectNode> parse(JsonNode items, String field) {
        if (items == null || items.isNull()) return List.of();
        if (!items.isArray()) throw bad("invalid_type", "Invalid type for '" + field + "': expected an array.", field);
        if (items.size() > MAX_ITEMS)
            throw bad("array_above_max_length", "Invalid '" + field + "': array too long. Expected an array with maximum "
                    + "length " + MAX_ITEMS + ", but got an array with length " + items.size() + " instead.", field);
        var out = new ArrayList<ObjectNode>();
        for (int i = 0; i < items.size(); i++) out.add(item(items.get(i), field + "[" + i + "]"));
        return out;
    }

    private static ObjectNode item(JsonNode node, String at) {
        if (!(node instanceof ObjectNode given))
            throw bad("invalid_type", "Invalid type for '" + at + "': expected an object.", at);
        var item = given.deepCopy();
        var type = item.path("type").asText("message");
        switch (type) {
            case "message" -> message(item, at);
            case "function_call" -> {
                for (var f : new String[] {"call_id", "name", "arguments"}) text(item, f, at);
                id(item, "fc_").put("status", item.path("status").asText("completed"));
            }
            case "function_call_output" -> {
                text(item, "call_id", at);
                if (!item.hasNonNull("output")) throw missing(at + ".output");
                id(item, "fco_").put("status", item.path("status").asText("completed"));
            }
            case "mcp_call" -> id(item, "mcp_");
            case "reasoning" -> id(item, "rs_");
            default -> throw bad("invalid_value", "Invalid value for '" + at + ".type': " + type + " (use message, "
                    + "function_call, function_call_output, mcp_call or reasoning).", at + ".type");
        }
        item.put("type", type);
        return item;
    }

    private static void message(ObjectNode item, String at) {
        var role = item.path("role").asText("");
        if (!ROLES.contains(role))
            throw bad("invalid_value", "Invalid value for '" + at + ".role': expected user, assistant, system or developer.",
                    at + ".role");
        var content = item.get("content");
        if (content == null || content.isNull()) throw missing(at + ".content");
        if (content.isTextual()) {
            ArrayNode parts = Envelope.JSON.arrayNode();
            var part = parts.addObject().put("type", role.equals("assistant") ? "output_text" : "input_text")
                    .put("text", content.asText());
            if (role.equals("assistant")) part.putArray("annotations");
            item.set("content", parts);
        } else if (!content.isArray()) {
            throw bad("invalid_type", "Invalid type for '" + at + ".content': expected a string or an array.", at + ".content");
        } else {
            for (int i = 0; i < content.size(); i++)
                if (!content.get(i).path("type").isTextual())
                    throw missing(at + ".content[" + i + "].type");
        }
        id(item, "msg_").put("status", item.path("status").asText("completed"));
    }

    private static ObjectNode id(ObjectNode item, String prefix) {
        if (!item.path("id").isTextual() || item.get("id").asText().isBlank()) item.put("id", Envelope.newItemId(prefix));
        return item;
    }

    private static void text(ObjectNode item, String field, String at) {
        if (!item.path(field).isTextual()) throw missing(at + "." + field);
    }

    private static RuntimeException missing(String param) {
        return bad("missing_required_parameter", "Missing required parameter: '" + param + "'.", param);
    }

    private static RuntimeException bad(String code, String message, String param) {
        return ApiError.badRequest(code, message, param).exception();
    }
}
