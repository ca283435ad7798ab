package dev.caduceus.plugin.responses;

import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;

/**
 * {@code GET /api/conversations?limit=50}: conversation names, most recently updated first, as
 * {@code {"conversations":[{"name","response_id","updated_at","turns","owner"}]}}: the latest response
 * ({@code response_id}), its {@code created_at} ({@code updated_at}, unix seconds) and how many
 * responses its chain has ({@code turns}). A named key lists its own names; the admin key every key's
 * (names are per key, hence {@code owner}), or one key's with {@code ?owner=NAME}. {@code limit} 1–100
 * (default 50), else 400 {@code invalid_limit}. Beside them, {@code conversation_objects}: the Conversations API's
 * {@code conv_…} objects, newest first ({@link ConversationObjects#list}), with the same owner and limit. Thread-safe.
 */
final class ConversationListHandler implements HttpHandler {
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 100;

    private final ResponseCatalog catalog;
    private final ConversationObjects objects;

    ConversationListHandler(ResponseCatalog catalog, ConversationObjects objects) {
        this.catalog = catalog;
        this.objects = objects;
    }

    @Override
    public void handle(HttpExchange exchange) {
        int limit = ListParameters.limit(exchange, DEFAULT_LIMIT, MAX_LIMIT);
        var body = Envelope.JSON.objectNode();
        var list = body.putArray("conversations");
        var owner = ListParameters.listOwner(exchange);
        catalog.conversations(owner, limit).forEach(c -> list.add(c.toJson()));
        objects.list(owner, limit).forEach(body.putArray("conversation_objects")::add);
        exchange.respond(200, body);
    }
}
