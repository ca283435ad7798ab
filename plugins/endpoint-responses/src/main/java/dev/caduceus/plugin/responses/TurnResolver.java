package dev.caduceus.plugin.responses;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.agent.Message;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.http.ApiError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Resolves a request against the store (http-api §8.1): history is explicit
 * {@code conversation_history} &gt; the chain ({@code previous_response_id} or the conversation's
 * latest response) &gt; none; instructions and the session id are inherited from the chain. One
 * store read per turn whatever the chain's length. Thread-safe.
 */
final class TurnResolver {
    private final PlatformContext ctx;
    private final ResponseStore store;

    TurnResolver(PlatformContext ctx, ResponseStore store) {
        this.ctx = ctx;
        this.store = store;
    }

    Turn resolve(ResponseRequest request, SessionHeaders session) {
        var chain = chain(request);
        List<Message> prior = request.explicitHistory() != null ? request.explicitHistory()
                : chain.map(StoredResponse::transcript).orElse(List.of());
        var instructions = request.instructions() != null ? request.instructions()
                : chain.map(StoredResponse::instructions).orElse(null);
        var sessionId = chain.map(StoredResponse::sessionId).orElseGet(() -> session.sessionKey() != null
                ? "key-" + IdempotencyCache.sha256Hex(session.sessionKey()).substring(0, 16)
                : UUID.randomUUID().toString());
        var sent = request.truncateAuto() && prior.size() > ResponseRequest.AUTO_TRUNCATION_MESSAGES
                ? prior.subList(prior.size() - ResponseRequest.AUTO_TRUNCATION_MESSAGES, prior.size()) : prior;
        var messages = new ArrayList<Message>(sent);
        messages.addAll(request.input());
        var envelope = new Envelope(Envelope.newResponseId(), ctx.clock().instant().getEpochSecond(),
                request.model(), instructions, request.previousResponseId(), request.metadata());
        var run = new RunRequest(upstreamModel(request), messages, instructions, List.of(), sessionId,
                session.sessionKey(), request.options(), 0, Map.of("source", "responses"));
        return new Turn(request, envelope, prior, sessionId, run);
    }

    /** The stored response this turn continues; an unknown {@code previous_response_id} is a 404 unless history is explicit. */
    private Optional<StoredResponse> chain(ResponseRequest request) {
        if (request.previousResponseId() != null) {
            var found = store.find(request.previousResponseId());
            if (found.isEmpty() && request.explicitHistory() == null)
                throw ApiError.notFound("previous_response_not_found",
                        "Previous response not found: " + request.previousResponseId()).exception();
            return found;
        }
        if (request.conversation() != null) // an unknown or evicted name starts a new conversation
            return store.conversation(request.conversation()).flatMap(store::find);
        return Optional.empty();
    }

    /**
     * §14.2: the advertised name (or none) means the configured upstream model (null); another name is
     * sent upstream only with {@code provider} in the body or {@code model.direct_model_requests}.
     * ({@code model.routes} aliases: not yet, as in endpoint-chat.)
     */
    private String upstreamModel(ResponseRequest request) {
        var direct = ctx.global().directModelRequests() || request.body().path("provider").isTextual();
        return direct && !request.model().equals(ctx.global().modelName()) ? request.model() : null;
    }
}
