package dev.caduceus.plugin.responses;

import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;

/**
 * {@code GET /v1/responses/{response_id}/input_items} (OpenAI's "list input items"): the items
 * used to generate a stored response ({@link InputItems}), paged by {@link InputItemsQuery}. A bad
 * {@code limit} or {@code order} is a 400 before the lookup; an unknown, removed or
 * {@code store: false} response, or another key's, is the 404 {@code response_not_found} of GET; an {@code after} or
 * {@code before} that is not an item of the list is a 400. The transcript up to the response's
 * input is read whole (one range query) and paged in memory. Thread-safe.
 */
final class InputItemsHandler implements HttpHandler {
    private final ResponseStore store;

    InputItemsHandler(ResponseStore store) {
        this.store = store;
    }

    @Override
    public void handle(HttpExchange exchange) {
        var id = exchange.pathParam("response_id");
        var query = InputItemsQuery.from(exchange);
        var found = store.find(id, exchange.caller()).orElseThrow(() -> RetrieveHandler.notFound(id));
        var inputs = store.inputs(found).orElseThrow(() -> RetrieveHandler.notFound(id));
        exchange.respond(200, query.page(InputItems.of(id, inputs)).toJson());
    }
}
