package dev.caduceus.plugin.responses;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One row of the response store, without its transcript (read separately with
 * {@link ResponseStore#history}). Immutable; the envelope is never modified after construction
 * (callers copy it before changing it).
 *
 * @param id           {@code resp_…}
 * @param owner        the name of the key that created it ({@code Caller#name()}); only that key and
 *                     the admin key may read, continue or delete it
 * @param envelope     the response object as returned by GET
 * @param instructions the effective instructions of this turn (inherited by the next), or null
 * @param sessionId    the session id the chain shares
 * @param streamed     created with {@code stream: true}, so an event journal exists
 * @param createdAt    unix seconds
 * @param position     where its transcript ends in the chain store; null for a V1 row (whole
 *                     transcript in the row) and for a response not saved yet
 * @param parentId     the stored response this turn continued ({@code previous_response_id}, or the
 *                     latest response of its conversation), or null; written on first save only
 */
record StoredResponse(String id, String owner, ObjectNode envelope, String instructions, String sessionId, boolean streamed,
                      long createdAt, ChainPosition position, String parentId) {
    StoredResponse {
        requireNonNull(id, "id");
        requireNonNull(owner, "owner");
        requireNonNull(envelope, "envelope");
        requireNonNull(sessionId, "sessionId");
    }

    String status() {
        return envelope.path("status").asText("");
    }
}
