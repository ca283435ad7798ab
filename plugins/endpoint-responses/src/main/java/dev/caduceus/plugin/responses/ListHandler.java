package dev.caduceus.plugin.responses;

import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;

/**
 * {@code GET /v1/responses?limit=20&after=<response id>&conversation=<name>}: stored responses, newest
 * first, in OpenAI's list shape ({@code object}, {@code data}, {@code first_id}, {@code last_id},
 * {@code has_more}), each a short summary ({@link ResponseCatalog.Item}), not the response object.
 * A named key lists its own; the admin key every key's, or one key's with {@code ?owner=NAME}, as
 * {@code GET /v1/runs}. {@code conversation} keeps the chain of that conversation name (the caller's
 * own names; the admin key's own unless {@code ?owner=NAME}); an unknown name lists nothing.
 * {@code limit} 1–100 (default 20), else 400 {@code invalid_limit}; {@code after} must be the id of a
 * stored response the caller may see, else 400 {@code invalid_after} (another key's id reads as
 * unknown). Responses stored with {@code store: false} are never listed. Thread-safe.
 */
final class ListHandler implements HttpHandler {
    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 100;

    private final ResponseCatalog catalog;

    ListHandler(ResponseCatalog catalog) {
        this.catalog = catalog;
    }

    @Override
    public void handle(HttpExchange exchange) {
        int limit = ListParameters.limit(exchange, DEFAULT_LIMIT, MAX_LIMIT);
        var afterId = exchange.query("after").map(String::trim).filter(v -> !v.isEmpty()).orElse(null);
        var after = afterId == null ? null : catalog.cursorAfter(afterId, exchange.caller()).orElseThrow(() ->
                ApiError.badRequest("invalid_after", "Invalid 'after': no stored response " + afterId, "after").exception());
        var page = catalog.page(ListParameters.listOwner(exchange), ListParameters.text(exchange, "conversation"),
                ListParameters.nameOwner(exchange), after, limit);
        var body = Envelope.JSON.objectNode().put("object", "list");
        var data = body.putArray("data");
        page.data().forEach(item -> data.add(item.toJson()));
        body.put("first_id", page.data().isEmpty() ? null : page.data().getFirst().id());
        body.put("last_id", page.data().isEmpty() ? null : page.data().getLast().id());
        body.put("has_more", page.hasMore());
        exchange.respond(200, body);
    }
}
