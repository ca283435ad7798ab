package dev.caduceus.plugin.responses;

import dev.caduceus.support.services.ResponseHistory;
import dev.caduceus.spi.http.Caller;
import java.util.Optional;

/**
 * The store's conversations for other endpoint families ({@code previous_response_id} on
 * {@code POST /v1/runs}), read exactly as {@link TurnResolver} reads a
 * {@code previous_response_id} chain without truncation: the stored response, then its whole
 * transcript (every earlier turn plus its own input and output) in one range query. A response that
 * is not stored, was removed, is another key's (the admin key {@value Caller#ADMIN} loads any), or
 * whose transcript is gone or corrupt is empty, as it is a 404 there.
 * Reading refreshes the response's access tick (for least-recently-used eviction). Thread-safe.
 */
final class StoredHistory implements ResponseHistory {
    private final ResponseStore store;

    StoredHistory(ResponseStore store) {
        this.store = store;
    }

    @Override
    public Optional<Conversation> load(String owner, String responseId) {
        if (responseId == null || responseId.isBlank()) return Optional.empty();
        var caller = Caller.ADMIN.equals(owner) ? Caller.ADMIN_CALLER : Caller.tenant(owner);
        return store.find(responseId, caller).flatMap(response -> store.history(response, Integer.MAX_VALUE)
                .map(messages -> new Conversation(response.sessionId(), response.instructions(), messages)));
    }
}
