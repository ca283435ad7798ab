package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpExchange;
import java.util.List;

/**
 * OpenAI's Conversations API over {@link ConversationObjects}, one method per route: create ({@code items} up to 20,
 * {@code metadata}), retrieve, update ({@code metadata}), delete; list items (paged as input items are: {@code limit},
 * {@code order}, {@code after}; {@code include} accepted), add items, retrieve and delete one item. Every route is the
 * caller's own: another key's conversation is the 404 {@code conversation_not_found} of an unknown id. Metadata is at
 * most 16 string values (keys up to 64 characters, values up to 512), as OpenAI's. Thread-safe.
 */
final class ConversationObjectsApi {
    static final int MAX_METADATA = 16;

    private final ConversationObjects store;

    ConversationObjectsApi(ConversationObjects store) {
        this.store = store;
    }

    /** {@code POST /v1/conversations}. */
    void create(HttpExchange exchange) {
        var body = bodyOrEmpty(exchange);
        var metadata = metadata(body.get("metadata"));
        var items = ConversationItems.parse(body.get("items"), "items");
        exchange.respond(200, store.create(exchange.caller().name(), metadata, items).toJson());
    }

    /** {@code GET /v1/conversations/{conversation_id}}. */
    void retrieve(HttpExchange exchange) {
        exchange.respond(200, owned(exchange).toJson());
    }

    /** {@code POST /v1/conversations/{conversation_id}}: replaces its metadata. */
    void update(HttpExchange exchange) {
        var id = exchange.pathParam("conversation_id");
        var body = exchange.body();
        if (!body.has("metadata"))
            throw ApiError.badRequest("missing_required_parameter", "Missing required parameter: 'metadata'.", "metadata")
                    .exception();
        var metadata = metadata(body.get("metadata"));
        exchange.respond(200, store.updateMetadata(id, exchange.caller(), metadata).orElseThrow(() -> notFound(id)).toJson());
    }

    /** {@code DELETE /v1/conversations/{conversation_id}}: the conversation and its items (its responses stay). */
    void delete(HttpExchange exchange) {
        var id = exchange.pathParam("conversation_id");
        if (!store.delete(id, exchange.caller())) throw notFound(id);
        exchange.respond(200, Envelope.JSON.objectNode().put("id", id).put("object", "conversation.deleted")
                .put("deleted", true));
    }

    /** {@code GET /v1/conversations/{conversation_id}/items}. */
    void listItems(HttpExchange exchange) {
        var query = InputItemsQuery.from(exchange);
        var conversation = owned(exchange);
        exchange.respond(200, query.page(store.items(conversation.id()), "in this conversation").toJson());
    }

    /** {@code POST /v1/conversations/{conversation_id}/items}: appends up to 20 items; answers the items added. */
    void addItems(HttpExchange exchange) {
        var body = exchange.body();
        if (!body.has("items"))
            throw ApiError.badRequest("missing_required_parameter", "Missing required parameter: 'items'.", "items")
                    .exception();
        var items = ConversationItems.parse(body.get("items"), "items");
        var conversation = owned(exchange);
        store.add(conversation.id(), items);
        exchange.respond(200, new InputItemsQuery.Page(List.copyOf(items), false).toJson());
    }

    /** {@code GET /v1/conversations/{conversation_id}/items/{item_id}}. */
    void retrieveItem(HttpExchange exchange) {
        var conversation = owned(exchange);
        var itemId = exchange.pathParam("item_id");
        exchange.respond(200, store.item(conversation.id(), itemId).orElseThrow(() -> itemNotFound(itemId)));
    }

    /** {@code DELETE /v1/conversations/{conversation_id}/items/{item_id}}: answers the conversation, as OpenAI does. */
    void deleteItem(HttpExchange exchange) {
        var conversation = owned(exchange);
        var itemId = exchange.pathParam("item_id");
        if (!store.deleteItem(conversation.id(), itemId)) throw itemNotFound(itemId);
        exchange.respond(200, conversation.toJson());
    }

    private ConversationObjects.Conversation owned(HttpExchange exchange) {
        var id = exchange.pathParam("conversation_id");
        return store.find(id, exchange.caller()).orElseThrow(() -> notFound(id));
    }

    /** The body, or an empty object when the request has none (the SDKs send none for an empty create). */
    private static JsonNode bodyOrEmpty(HttpExchange exchange) {
        if (exchange.header("Content-Length").map(String::trim).filter("0"::equals).isPresent()) return Envelope.JSON.objectNode();
        var body = exchange.body();
        if (!body.isObject()) throw ApiError.badRequest("invalid_type", "The request body must be a JSON object.", null).exception();
        return body;
    }

    /** {@code metadata}: absent or null is {}; else at most 16 string values, keys ≤ 64 and values ≤ 512 characters. */
    static ObjectNode metadata(JsonNode node) {
        if (node == null || node.isNull()) return Envelope.JSON.objectNode();
        if (!(node instanceof ObjectNode object))
            throw ApiError.badRequest("invalid_type", "Invalid type for 'metadata': expected an object.", "metadata").exception();
        if (object.size() > MAX_METADATA)
            throw ApiError.badRequest("invalid_value", "Invalid 'metadata': at most " + MAX_METADATA + " keys.", "metadata")
                    .exception();
        var fields = object.fields();
        while (fields.hasNext()) {
            var field = fields.next();
            if (field.getKey().length() > 64 || !field.getValue().isTextual() || field.getValue().asText().length() > 512)
                throw ApiError.badRequest("invalid_value", "Invalid 'metadata." + field.getKey() + "': keys are at most 64 "
                        + "characters and values strings of at most 512.", "metadata." + field.getKey()).exception();
        }
        return object.deepCopy();
    }

    static RuntimeException notFound(String id) {
        return ApiError.notFound("conversation_not_found", "Conversation not found: " + id).exception();
    }

    private static RuntimeException itemNotFound(String id) {
        return ApiError.notFound("item_not_found", "Item not found: " + id).exception();
    }
}
