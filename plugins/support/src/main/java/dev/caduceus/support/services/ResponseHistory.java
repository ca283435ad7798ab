package dev.caduceus.support.services;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.message.Message;
import java.util.List;
import java.util.Optional;

/**
 * Read access to stored Responses conversations, offered by the plugin that owns the response
 * store ({@code endpoint-responses}), so that another endpoint family can continue a chain
 * ({@code previous_response_id} on {@code POST /v1/runs}) without depending on that plugin. Found
 * with {@code ctx.service(ResponseHistory.class)}; empty when no plugin offers it.
 *
 * <p>Threading: thread-safe; may block on the database (call it from a request thread).
 */
public interface ResponseHistory {

    /**
     * The conversation up to and including {@code responseId}, or empty when it is not stored or
     * is not key {@code owner}'s ({@link dev.caduceus.spi.http.Caller#name()}; the admin key's
     * {@value dev.caduceus.spi.http.Caller#ADMIN} may load any).
     */
    Optional<Conversation> load(String owner, String responseId);

    /**
     * A stored conversation. Immutable.
     *
     * @param sessionId    the chain's session id
     * @param instructions the instructions of the stored response, or null
     * @param messages     the chain's messages oldest first (user inputs, assistant answers with their
     *                     tool calls, tool results), ready to be sent as history
     */
    record Conversation(String sessionId, String instructions, List<Message> messages) {
        public Conversation {
            requireNonNull(sessionId, "sessionId");
            messages = List.copyOf(messages);
        }
    }
}
