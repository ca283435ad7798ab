package dev.caduceus.plugin.responses;

import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * {@code DELETE /api/conversations/{name}}: removes the caller's conversation name and the stored
 * responses of its chain, with their event journals ({@link ResponseStore#deleteConversation}); 200
 * {@code {"deleted":true,"name":…,"responses_deleted":N}}. The name is looked up among the caller's
 * own (the admin key's own, or key {@code NAME}'s with {@code ?owner=NAME}); an unknown name, like
 * another key's, is 404 {@code conversation_not_found}. The name is one path segment, percent-encoded
 * ({@code /} and {@code %} cannot be sent: the host refuses an encoded {@code /} or {@code %} as an
 * ambiguous path). A response another request continued
 * (a branch off the chain) stays, and keeps its whole transcript. Thread-safe.
 */
final class ConversationDeleteHandler implements HttpHandler {
    private final ResponseStore store;

    ConversationDeleteHandler(ResponseStore store) {
        this.store = store;
    }

    @Override
    public void handle(HttpExchange exchange) {
        var name = decoded(exchange.pathParam("name"));
        var removed = store.deleteConversation(ListParameters.nameOwner(exchange), name)
                .orElseThrow(() -> notFound(name));
        exchange.respond(200, Envelope.JSON.objectNode().put("deleted", true).put("name", name)
                .put("responses_deleted", removed));
    }

    /**
     * The name itself: the host hands path parameters over as Jetty's canonical path has them, with
     * the characters a path must keep escaped (space, {@code ?}, {@code #}, {@code ;}, …) still
     * percent-encoded, so they are decoded here ({@code +} is a plus in a path, not a space).
     */
    static String decoded(String segment) {
        if (segment.indexOf('%') < 0) return segment;
        try {
            return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return segment; // not an escape sequence (the host refuses malformed ones before this)
        }
    }

    static RuntimeException notFound(String name) {
        return ApiError.notFound("conversation_not_found", "Conversation not found: " + name).exception();
    }
}
