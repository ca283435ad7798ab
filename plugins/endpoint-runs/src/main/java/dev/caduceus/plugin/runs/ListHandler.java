package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;

/**
 * {@code GET /v1/runs}: one page of run status objects, newest first, with
 * {@code has_more} and the {@code next_cursor} of its last run (null on the last page). Thread-safe.
 */
final class ListHandler implements HttpHandler {
    private final PlatformContext ctx;

    ListHandler(PlatformContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void handle(HttpExchange exchange) {
        var page = ctx.runs().list(ListQuery.from(exchange));
        var answer = JsonNodeFactory.instance.objectNode().put("object", "list");
        var data = answer.putArray("data");
        page.runs().forEach(run -> data.add(RunView.of(run)));
        answer.put("has_more", page.hasMore());
        answer.put("next_cursor", page.hasMore() && !page.runs().isEmpty()
                ? ListCursor.after(page.runs().getLast()).encode() : null);
        exchange.respond(200, answer);
    }
}
