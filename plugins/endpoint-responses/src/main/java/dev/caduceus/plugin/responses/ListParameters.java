package dev.caduceus.plugin.responses;

import dev.caduceus.spi.http.HttpExchange;

/**
 * Query values the plugin's list routes share: {@code limit} (each bad value a 400
 * {@code invalid_limit}) and whose objects a list shows ({@code owner}, as {@code GET /v1/runs} and
 * {@code GET /api/jobs} read it). Stateless.
 */
final class ListParameters {
    private ListParameters() {}

    /** {@code limit}: absent is {@code defaultLimit}; otherwise a whole number 1 … {@code max}. */
    static int limit(HttpExchange exchange, int defaultLimit, int max) {
        return dev.caduceus.support.wire.QueryValues.limit(exchange, defaultLimit, max);
    }

    /**
     * Whose objects a list shows: a named key its own ({@code ?owner=} is ignored for it); the admin key
     * every key's (null), or one key's with {@code ?owner=NAME}.
     */
    static String listOwner(HttpExchange exchange) {
        var caller = exchange.caller();
        return caller.admin() ? text(exchange, "owner") : caller.name();
    }

    /**
     * Whose conversation names a name is looked up in: a named key's own; for the admin key its own
     * too, or key {@code NAME}'s with {@code ?owner=NAME} (names are per key, so the admin key reaches
     * another key's conversation by naming the key).
     */
    static String nameOwner(HttpExchange exchange) {
        var caller = exchange.caller();
        var owner = caller.admin() ? text(exchange, "owner") : null;
        return owner == null ? caller.name() : owner;
    }

    /** A query value, or null when absent or empty. */
    static String text(HttpExchange exchange, String name) {
        return dev.caduceus.support.wire.QueryValues.text(exchange, name);
    }
}
