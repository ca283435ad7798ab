package dev.caduceus.plugin.responses;

import dev.caduceus.support.services.FileLibrary;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.support.clienttools.ToolTranscript;
import dev.caduceus.support.clienttools.PendingToolCalls;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.support.idempotency.IdempotencyCache;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.HttpStatusException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code POST /v1/responses}, in the pipeline's order: admission (draining, model,
 * concurrency cap) before the body, then the session key header, the body, the chain, and one agent
 * run answered as a response object or as an event stream. The response, its run and its
 * {@code Idempotency-Key} belong to the calling key. Thread-safe; one call per request.
 */
final class CreateHandler implements HttpHandler {
    /** The body fields of the idempotency fingerprint (with the session headers, they make a request the same one). */
    static final java.util.List<String> FINGERPRINT_FIELDS = java.util.List.of("input", "instructions", "previous_response_id", "conversation", "model", "provider",
            "model_options", "tools", "tool_choice", "parallel_tool_calls", "text", "background");
    static final String PATH = "/v1/responses";
    static final String CANCEL_REASON = "client disconnected";

    private final PlatformContext ctx;
    private final ResponseStore store;
    private final TurnResolver resolver;
    private final IdempotencyCache idempotency;
    private final Set<String> live;
    private final ProgressReasoning progress;
    private final PendingToolCalls pending;
    private final BackgroundResponses background;
    private final JournalFollower follower;

    CreateHandler(PlatformContext ctx, ResponseStore store, IdempotencyCache idempotency, Set<String> live,
                  BackgroundResponses background, PendingToolCalls pending, TurnResolver resolver) {
        this.ctx = ctx;
        this.background = background;
        this.follower = new JournalFollower(ctx, store, live);
        this.store = store;
        this.pending = pending;
        this.resolver = resolver;
        this.idempotency = idempotency;
        this.live = live;
        this.progress = ProgressReasoning.from(ctx);
    }

    @Override
    public void handle(HttpExchange exchange) throws Exception {
        RunRejectedException atCapacity = null;
        try {
            ctx.runs().checkAdmission();
        } catch (RunRejectedException e) {
            if (e.reason() != RunRejectedException.Reason.AT_CAPACITY) throw rejected(e);
            atCapacity = e; // a background response waits for its turn instead; the body says which this is
        }
        ResponsesSessionHeaders session;
        ResponseRequest request;
        try {
            session = ResponsesSessionHeaders.from(exchange);
            request = ResponseRequest.parse(exchange.body(), ctx.global().modelName(),
                    name -> ctx.deployment().tool(name).isPresent(), new dev.caduceus.support.files.FileInputs(
                            ctx.global().workspace(), ctx.service(dev.caduceus.support.services.FileLibrary.class),
                            exchange.caller(), java.util.Optional.of(ctx.outbound())));
        } catch (HttpStatusException e) {
            if (atCapacity != null) throw rejected(atCapacity); // at the cap, the cap is the answer, as before the body
            throw e;
        }
        if (atCapacity != null && !request.background()) throw rejected(atCapacity);
        var webhook = webhook(request);
        var turn = resolver.resolve(request, session, exchange.caller());
        exchange.header(ResponsesSessionHeaders.SESSION_ID, turn.sessionId());
        if (session.sessionKey() != null) exchange.header(ResponsesSessionHeaders.SESSION_KEY, session.sessionKey());
        if (request.background()) background(exchange, turn, session, webhook);
        else if (request.stream()) stream(exchange, turn);
        else complete(exchange, turn, session);
    }

    /**
     * A background response: queued and answered at once, or with {@code stream} its journal followed from the
     * start; a client that leaves the stream leaves the response running.
     */
    /**
     * The request's {@code webhook} (a URL or {url, events}), or null: only with {@code background} (400
     * {@code invalid_webhook} otherwise, or when malformed), and 400 {@code webhook_not_allowed} for a host the
     * deployment refuses.
     */
    private dev.caduceus.spi.webhook.Webhook webhook(ResponseRequest request) {
        var field = request.body().get("webhook");
        if (field == null || field.isNull()) return null;
        if (!request.background())
            throw dev.caduceus.spi.http.ApiError.badRequest("invalid_webhook", "A webhook needs background: true.", "webhook").exception();
        dev.caduceus.spi.webhook.Webhook hook;
        try {
            hook = dev.caduceus.spi.webhook.Webhook.fromJson(field);
        } catch (IllegalArgumentException e) {
            throw dev.caduceus.spi.http.ApiError.badRequest("invalid_webhook", e.getMessage(), "webhook").exception();
        }
        var refusal = ctx.webhooks().refusal(hook);
        if (refusal.isPresent())
            throw dev.caduceus.spi.http.ApiError.badRequest("webhook_not_allowed", refusal.get(), "webhook").exception();
        return hook;
    }

    private void background(HttpExchange exchange, ResolvedTurn turn, ResponsesSessionHeaders session,
                            dev.caduceus.spi.webhook.Webhook webhook) throws Exception {
        var owner = turn.run().owner();
        var key = exchange.header("Idempotency-Key").filter(k -> !k.isBlank()).orElse(null);
        var id = turn.envelope().id();
        if (key != null) { // a retried create gets the response it started, from any node, while that is stored
            var fingerprint = IdempotencyCache.fingerprint(turn.request().body(), FINGERPRINT_FIELDS, session.sessionId(),
                    session.sessionKey());
            var earlier = store.backgroundKey(owner, key);
            if (earlier.isEmpty() && !store.claimBackgroundKey(owner, key, fingerprint, id))
                earlier = store.backgroundKey(owner, key); // a concurrent create with this key won
            if (earlier.isPresent()) {
                var started = earlier.get();
                if (!started.fingerprint().equals(fingerprint))
                    throw new RunRejectedException(RunRejectedException.Reason.IDEMPOTENCY_CONFLICT,
                            RunRejectedException.IDEMPOTENCY_CONFLICT_MESSAGE).toApiError().exception();
                answer(exchange, turn.request().stream(), started.responseId(),
                        store.find(started.responseId(), exchange.caller())
                                .orElseThrow(() -> RetrieveHandler.notFound(started.responseId())).envelope());
                return;
            }
        }
        ObjectNode body;
        try {
            body = background.submit(turn, newStream(exchange, turn, store), webhook);
        } catch (RuntimeException e) {
            if (key != null) store.releaseBackgroundKey(owner, key, id);
            throw e;
        }
        answer(exchange, turn.request().stream(), id, body);
    }

    /** A background response's answer: {@code body}, or with {@code stream} its journal followed from the start. */
    private void answer(HttpExchange exchange, boolean stream, String id, JsonNode body)
            throws InterruptedException {
        if (!stream) {
            exchange.respond(200, body);
            return;
        }
        try (var out = exchange.openEventStream()) {
            follower.follow(id, exchange.caller(), -1, out);
        } catch (ClientGoneException e) {
            // The client left; the response goes on (GET …?stream=true&starting_after=N picks it up again).
        }
    }

    private ResponseStream newStream(HttpExchange exchange, ResolvedTurn turn, ResponseStore stored) {
        ResponseStream.Handoff handoff = (calls, steps) -> pending.remember(turn.run().owner(), calls, steps);
        return new ResponseStream(turn, stored, progress.resolve(exchange.header(ProgressReasoning.HEADER)), handoff,
                ctx.clock()).withFiles(() -> ctx.service(FileLibrary.class));
    }

    private void stream(HttpExchange exchange, ResolvedTurn turn) throws Exception {
        var run = start(turn.run());
        exchange.onClientGone(() -> run.cancel(CANCEL_REASON));
        var stored = turn.request().store() ? store : null;
        live.add(turn.envelope().id());
        try {
            newStream(exchange, turn, stored).run(run, exchange.openEventStream(), new dev.caduceus.support.stream.EventPump(java.time.Duration.ofSeconds(ctx.global().sseKeepaliveSeconds())));
        } finally {
            live.remove(turn.envelope().id());
        }
    }

    private void complete(HttpExchange exchange, ResolvedTurn turn, ResponsesSessionHeaders session) throws Exception {
        var gone = new AtomicBoolean();
        var handle = new AtomicReference<RunHandle>();
        exchange.onClientGone(() -> {
            gone.set(true);
            var h = handle.get();
            if (h != null) h.cancel(CANCEL_REASON);
        });
        Callable<RunResult> compute = () -> {
            RunResult result;
            try { // on this thread: nothing reads the run until it ends
                result = ctx.runs().call(turn.run(), h -> {
                    handle.set(h);
                    if (gone.get()) h.cancel(CANCEL_REASON);
                });
            } catch (RunRejectedException e) {
                throw rejected(e);
            }
            if (gone.get()) throw new ClientLeft(); // a cancelled turn nobody reads is not worth caching
            return result;
        };
        var key = exchange.header("Idempotency-Key").filter(k -> !k.isBlank());
        RunResult result;
        try {
            result = key.isEmpty() ? compute.call()
                    : idempotency.resolve(PATH + "\0" + turn.run().owner() + "\0" + key.get(), // per key
                            IdempotencyCache.fingerprint(turn.request().body(), FINGERPRINT_FIELDS, session.sessionId(), session.sessionKey()), compute);
        } catch (ClientLeft e) {
            return;
        } catch (HttpStatusException e) {
            throw e; // 429/503 from start(): the contract's error, not a failed response
        } catch (RuntimeException e) {
            // An exception is still a 200 with status "failed" (and is never cached).
            result = RunResult.of(StopReason.INTERNAL_ERROR, null, Usage.ZERO, "internal_error",
                    TurnOutput.INTERNAL_ERROR, List.of());
        }
        var client = turn.run().clientTools();
        if (result.stopReason() == StopReason.TOOL_CALLS)
            pending.remember(turn.run().owner(), ToolTranscript.clientCalls(result.messages(), client), result.messages());
        var body = TurnOutput.envelope(turn.envelope(), result, client, ctx.clock().instant().getEpochSecond());
        if (!TurnOutput.failed(result) && handle.get() != null && FileLibrary.mayHaveDelivered(result.messages()))
            DeliveredFiles.annotate(body, ctx.service(FileLibrary.class), turn.run().owner(), handle.get().id());
        if (turn.request().store())
            store.save(turn.snapshot(body, turn.envelope().createdAt()), turn.write(TurnOutput.produced(result)),
                    turn.request().conversation());
        if (TurnOutput.failed(result)) {
            exchange.header("X-Hermes-Completed", "false")
                    .header("X-Hermes-Partial", String.valueOf(result.stopReason().partial()));
        }
        exchange.respond(200, body);
    }

    private RunHandle start(RunRequest request) {
        try {
            return ctx.runs().start(request, RunOptions.ephemeral()).handle();
        } catch (RunRejectedException e) {
            throw rejected(e);
        }
    }

    /** 503 draining, 503 model not configured, 429 at capacity (with retry hints). */
    static HttpStatusException rejected(RunRejectedException e) {
        return e.toApiError().exception();
    }

    /** The client left a non-streaming request; nothing is answered or cached. */
    private static final class ClientLeft extends RuntimeException {
        ClientLeft() {
            super("client left", null, false, false);
        }
    }
}
