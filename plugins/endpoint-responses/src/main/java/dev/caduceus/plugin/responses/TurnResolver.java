package dev.caduceus.plugin.responses;

import dev.caduceus.support.clienttools.PendingToolCalls;
import dev.caduceus.support.clienttools.ToolTranscript;

import dev.caduceus.support.idempotency.IdempotencyCache;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.Caller;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Resolves a request against the store: history is explicit
 * {@code conversation_history} &gt; the chain ({@code previous_response_id} or the conversation's
 * latest response) &gt; none; instructions and the session id are inherited from the chain. The
 * history is one range query of the chain store whatever the chain's length (with
 * {@code truncation: "auto"}, of its last 100 messages only). Conversation names are per key: the
 * caller's name "x" is its own conversation "x". Thread-safe.
 */
final class TurnResolver {
    private final PlatformContext ctx;
    private final ResponseStore store;
    private final PendingToolCalls pending;

    /** @param pending the server's side of turns that ended with the caller's own tool calls, for their continuations */
    TurnResolver(PlatformContext ctx, ResponseStore store, PendingToolCalls pending) {
        this.ctx = ctx;
        this.store = store;
        this.pending = pending;
    }

    /**
     * @param caller the key sending the request: the turn is its own, and it continues only a
     *               response it owns (another key's {@code previous_response_id} is the 404 of an
     *               unknown one) or a conversation name of its own
     */
    ResolvedTurn resolve(ResponseRequest request, ResponsesSessionHeaders session, Caller caller) {
        var object = conversationObject(request, caller);
        var chain = object.isPresent() ? Optional.<StoredResponse>empty() : chain(request, caller);
        List<Message> prior = List.of();
        ChainPosition parent = null;
        if (request.explicitHistory() != null) {
            prior = request.explicitHistory();
        } else if (object.isPresent()) { // its items are the history; the turn starts a chain of its own
            var items = Envelope.JSON.arrayNode();
            store.conversationObjects().items(object.get().id()).forEach(items::add);
            prior = ResponseRequest.inputMessages(items);
        } else if (chain.isPresent()) {
            var history = store.history(chain.get(), request.truncateAuto()
                    ? ResponseRequest.AUTO_TRUNCATION_MESSAGES : Integer.MAX_VALUE);
            if (history.isEmpty()) { // removed meanwhile or corrupt: as if it had never been stored
                if (request.previousResponseId() != null) throw previousNotFound(request);
                chain = Optional.empty();
            } else {
                prior = history.get();
                parent = chain.get().position();
            }
        }
        var instructions = request.instructions() != null ? request.instructions()
                : chain.map(StoredResponse::instructions).orElse(null);
        var sessionId = object.isPresent() ? object.get().id() : chain.map(StoredResponse::sessionId).orElseGet(() -> session.sessionKey() != null
                ? "key-" + IdempotencyCache.sha256Hex(session.sessionKey()).substring(0, 16)
                : UUID.randomUUID().toString());
        var sent = request.truncateAuto() && prior.size() > ResponseRequest.AUTO_TRUNCATION_MESSAGES
                ? prior.subList(prior.size() - ResponseRequest.AUTO_TRUNCATION_MESSAGES, prior.size()) : prior;
        // A client that resends its whole history (no previous_response_id) gets the server's steps of the turn it
        // answers back where its function_call items stood; then calls and answers are paired.
        var input = pending.splice(caller.name(), withoutEchoes(caller.name(), request.input()));
        var all = new ArrayList<Message>(sent);
        all.addAll(input);
        var split = ToolTranscript.split(all);
        if (split.input().isEmpty())
            throw ApiError.badRequest("no_user_message", "No user message found in input", "input").exception();
        var messages = split.all();
        var envelope = new Envelope(Envelope.newResponseId(), ctx.clock().instant().getEpochSecond(),
                request.model(), instructions, request.previousResponseId(), request.metadata(), request.background(),
                Envelope.echoed(request.body(), request.conversation()));
        var run = new RunRequest(upstreamModel(request, caller), messages, instructions, List.of(), sessionId,
                session.sessionKey(), request.options(), request.maxIterations(), Map.of("source", "responses"), request.stream(),
                caller.name()).withClientTools(request.clientTools());
        return new ResolvedTurn(request, envelope, prior, parent, chain.map(StoredResponse::id).orElse(null), sessionId, run,
                input);
    }

    /**
     * {@code input} without the server steps a client resent as {@code mcp_call} items right before its calls of a
     * turn this host keeps: the splice puts the whole steps (with their outputs, which clients may leave out) there.
     */
    private List<Message> withoutEchoes(String owner, List<Message> input) {
        List<Message> out = null;
        for (int i = 0; i < input.size(); i++) {
            var m = input.get(i);
            if (!m.role().equals("assistant") || m.toolCalls().isEmpty() || !pending.keeps(owner, m.toolCalls())) continue;
            if (out == null) out = new ArrayList<>(input);
            int drop = i - (input.size() - out.size());
            while (drop > 0 && ResponseRequest.ECHOED_STEP.equals(out.get(drop - 1).name())) out.remove(--drop);
        }
        return out == null ? input : out;
    }

    /** The conversation object ({@code conversation: "conv_…"}) the turn continues: the caller's, else a 404. */
    private Optional<ConversationObjects.Conversation> conversationObject(ResponseRequest request, Caller caller) {
        if (!ConversationObjects.isObjectId(request.conversation())) return Optional.empty();
        return Optional.of(store.conversationObjects().find(request.conversation(), caller)
                .orElseThrow(() -> ConversationObjectsApi.notFound(request.conversation())));
    }

    /** The stored response this turn continues; an unknown {@code previous_response_id} is a 404 unless history is explicit. */
    private Optional<StoredResponse> chain(ResponseRequest request, Caller caller) {
        if (request.previousResponseId() != null) {
            var found = store.find(request.previousResponseId(), caller);
            if (found.isEmpty() && request.explicitHistory() == null)
                throw previousNotFound(request);
            return found;
        }
        if (request.conversation() != null) // an unknown or evicted name starts a new conversation
            return store.conversation(caller.name(), request.conversation()).flatMap(id -> store.find(id, caller));
        return Optional.empty();
    }

    private static RuntimeException previousNotFound(ResponseRequest request) {
        return ApiError.notFound("previous_response_not_found",
                "Previous response not found: " + request.previousResponseId()).exception();
    }

    /**
     * Model selection: the advertised name (or none) means the configured upstream model (null); the name of a
     * model route ({@code model.routes}) picks that route; another name is sent upstream only with {@code provider}
     * in the body or {@code model.direct_model_requests}.
     */
    private String upstreamModel(ResponseRequest request, Caller caller) {
        var direct = ctx.global().directModelRequests() || request.body().path("provider").isTextual();
        return dev.caduceus.support.wire.ModelField.resolve(ctx, caller, request.model(), direct);
    }
}
