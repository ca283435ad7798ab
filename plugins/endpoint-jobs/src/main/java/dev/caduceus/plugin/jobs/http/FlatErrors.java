package dev.caduceus.plugin.jobs.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.HttpStatusException;

/**
 * Wraps a jobs handler so that its errors use the flat body of the jobs API (as in Hermes): {@link JobError}s and
 * the host's malformed-body answer ({@code invalid_json}) become {@code {"error": …}}. Anything else
 * (body too large, a 500) keeps the host's envelope. Thread-safe.
 */
final class FlatErrors implements HttpHandler {
    private final HttpHandler inner;

    FlatErrors(HttpHandler inner) {
        this.inner = inner;
    }

    @Override
    public void handle(HttpExchange exchange) throws Exception {
        try {
            inner.handle(exchange);
        } catch (JobError e) {
            exchange.respond(e.status(), JsonNodeFactory.instance.objectNode().put("error", e.getMessage()));
        } catch (HttpStatusException e) {
            if (!"invalid_json".equals(e.error().code())) throw e;
            exchange.respond(400, JsonNodeFactory.instance.objectNode().put("error", JobError.INVALID_JSON));
        }
    }
}
