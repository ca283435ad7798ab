package dev.caduceus.plugin.responses;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.Message;
import java.util.List;

/**
 * One row of the response store (http-api §8.6). Immutable; the envelope is never modified after
 * construction (callers copy it before changing it).
 *
 * @param id           {@code resp_…}
 * @param envelope     the response object as returned by GET
 * @param transcript   every message of the chain up to and including this turn, oldest first
 * @param instructions the effective instructions of this turn (inherited by the next), or null
 * @param sessionId    the session id the chain shares
 * @param streamed     created with {@code stream: true}, so an event journal exists
 * @param createdAt    unix seconds
 */
record StoredResponse(String id, ObjectNode envelope, List<Message> transcript, String instructions,
                      String sessionId, boolean streamed, long createdAt) {
    StoredResponse {
        requireNonNull(id, "id");
        requireNonNull(envelope, "envelope");
        transcript = List.copyOf(transcript);
        requireNonNull(sessionId, "sessionId");
    }

    String status() {
        return envelope.path("status").asText("");
    }
}
