package dev.caduceus.plugin.responses;

import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;

/**
 * {@code DELETE /v1/responses/{response_id}}: removes the response, its event journal
 * and every conversation name pointing to it. Another key's response is the 404 of an unknown id.
 * Thread-safe.
 */
final class DeleteHandler implements HttpHandler {
    private final ResponseStore store;

    DeleteHandler(ResponseStore store) {
        this.store = store;
    }

    @Override
    public void handle(HttpExchange exchange) {
        var id = exchange.pathParam("response_id");
        if (!store.delete(id, exchange.caller())) throw RetrieveHandler.notFound(id); // another key's: as unknown
        exchange.respond(200, Envelope.JSON.objectNode().put("id", id).put("object", "response").put("deleted", true));
    }
}
