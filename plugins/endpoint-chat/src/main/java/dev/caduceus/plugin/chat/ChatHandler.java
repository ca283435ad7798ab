package dev.caduceus.plugin.chat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import dev.caduceus.support.files.FileInputs;
import dev.caduceus.support.services.FileLibrary;
import dev.caduceus.support.clienttools.PendingToolCalls;
import dev.caduceus.support.clienttools.ToolTranscript;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.support.idempotency.IdempotencyCache;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.HttpStatusException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code POST /v1/chat/completions}, in the pipeline's order: admission (draining,
 * model, concurrency cap) before the body, then session headers, then the body, then one agent run
 * answered as JSON or as a stream. A front-end's housekeeping request ({@link Housekeeping}) is
 * answered by one plain model call instead ({@link HousekeepingCall}, header
 * {@code X-Hermes-Housekeeping: true}); it takes no concurrency slot, so at the cap the body is read
 * to tell, and anything else still gets the 429 before validation. Thread-safe; one call per request
 * on its own virtual thread.
 */
final class ChatHandler implements HttpHandler {
    /** The body fields of the idempotency fingerprint (with the session headers, they make a request the same one). */
    static final java.util.List<String> FINGERPRINT_FIELDS = java.util.List.of("model", "provider", "model_options", "messages", "tools",
            "tool_choice", "parallel_tool_calls", "response_format", "stream");
    static final String PATH = "/v1/chat/completions";
    static final String HOUSEKEEPING_HEADER = "X-Hermes-Housekeeping";
    private static final System.Logger LOG = System.getLogger(ChatHandler.class.getName());

    private final PlatformContext ctx;
    private final ChatSettings settings;
    private final IdempotencyCache idempotency;
    private final PendingToolCalls pending;
    private final JsonFactory answers = answerJson();
    /** What the host's JSON answers say they are. */
    static final String JSON_TYPE = "application/json; charset=utf-8";

    ChatHandler(PlatformContext ctx, ChatSettings settings, IdempotencyCache idempotency) {
        this.ctx = ctx;
        this.settings = settings;
        this.idempotency = idempotency;
        this.pending = new PendingToolCalls(ctx.clock());
    }

    @Override
    public void handle(HttpExchange exchange) throws Exception {
        RunRejectedException full = null;
        try {
            ctx.runs().checkAdmission();
        } catch (RunRejectedException e) {
            if (e.reason() != RunRejectedException.Reason.AT_CAPACITY || !settings.plainHousekeeping()) throw rejected(e);
            full = e; // a housekeeping request takes no slot: read the body to tell
        }
        // Session headers are checked before the body, as ever; at the cap the 429 still comes first.
        var session = full == null ? SessionHeaders.from(exchange) : null;
        if (settings.plainHousekeeping() && housekeeping(exchange, full)) return;
        if (full != null) throw rejected(full);
        var request = ChatRequest.parse(exchange.body(), ctx.global().modelName(), this::hostTool,
                new FileInputs(ctx.global().workspace(), ctx.service(FileLibrary.class), exchange.caller()));
        var sessionId = session.sessionId() != null ? session.sessionId() : derivedSessionId(request);
        var run = runRequest(request, session, sessionId, exchange.caller());
        exchange.header(SessionHeaders.SESSION_ID, sessionId);
        if (session.sessionKey() != null) exchange.header(SessionHeaders.SESSION_KEY, session.sessionKey());
        var shapes = new ChatCompletions(ChatCompletions.newId(), ctx.clock().instant().getEpochSecond(),
                request.model(), request.includeUsage());
        if (request.stream()) stream(exchange, run, shapes);
        else complete(exchange, request, session, run, shapes);
    }

    /** Whether {@code name} is one of this deployment's own tools (a client's function may not take its name). */
    private boolean hostTool(String name) {
        return ctx.deployment().tool(name).isPresent();
    }

    /**
     * Answers {@code exchange} with one plain model call when its body is a housekeeping request and
     * this host makes plain calls (not in proxy mode: there the remote recognises it); false otherwise.
     */
    private boolean housekeeping(HttpExchange exchange, RunRejectedException full) throws Exception {
        var models = models();
        if (models == null) return false;
        com.fasterxml.jackson.databind.JsonNode body;
        try {
            body = exchange.body();
        } catch (HttpStatusException e) {
            if (full != null) throw rejected(full); // at the cap, a bad body still gets the 429 first
            throw e;
        }
        var task = Housekeeping.recognise(body);
        if (task.isEmpty()) return false;
        var request = ChatRequest.parse(body, ctx.global().modelName());
        var model = settings.housekeepingModel().orElse(models.defaultModel());
        LOG.log(System.Logger.Level.DEBUG, () -> "Housekeeping request (" + task.get().frontEnd() + " "
                + task.get().name() + ") answered by one plain call to " + model);
        exchange.header(HOUSEKEEPING_HEADER, "true");
        var shapes = new ChatCompletions(ChatCompletions.newId(), ctx.clock().instant().getEpochSecond(),
                request.model(), request.includeUsage());
        new HousekeepingCall(models, model, answers).answer(exchange, request, shapes);
        return true;
    }

    /** The host's plain model calls, or null when it makes none (proxy mode, an older host). */
    private dev.caduceus.spi.model.Models models() {
        try {
            var models = ctx.models();
            return models.available() ? models : null;
        } catch (UnsupportedOperationException | IllegalStateException e) {
            return null;
        }
    }

    private void stream(HttpExchange exchange, RunRequest request, ChatCompletions shapes) throws Exception {
        var run = start(request);
        exchange.onClientGone(() -> run.cancel(ChatStream.CANCEL_REASON));
        var mode = settings.toolProgress().resolve(exchange.header(ToolProgress.OPT_IN_HEADER));
        ChatStream.Handoff handoff = calls -> pending.remember(request.owner(), calls, awaitMessages(run));
        new ChatStream(shapes, new ToolProgress(mode, shapes), handoff)
                .withLinks(DeliveredLinks.of(ctx.service(FileLibrary.class), exchange))
                .run(run, exchange.openEventStream(), new dev.caduceus.support.stream.EventPump(java.time.Duration.ofSeconds(ctx.global().sseKeepaliveSeconds())));
    }

    private void complete(HttpExchange exchange, ChatRequest request, SessionHeaders session, RunRequest run,
                          ChatCompletions shapes) throws Exception {
        var gone = new AtomicBoolean();
        var handle = new AtomicReference<RunHandle>();
        exchange.onClientGone(() -> {
            gone.set(true);
            var h = handle.get();
            if (h != null) h.cancel(ChatStream.CANCEL_REASON);
        });
        Callable<RunResult> compute = () -> {
            RunResult result;
            try { // on this thread: nothing reads the run until it ends
                result = ctx.runs().call(run, h -> {
                    handle.set(h);
                    if (gone.get()) h.cancel(ChatStream.CANCEL_REASON);
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
                    : idempotency.resolve(PATH + "\0" + exchange.caller().name() + "\0" + key.get(), // per key: never another's answer
                            IdempotencyCache.fingerprint(request.body(), FINGERPRINT_FIELDS, session.sessionId(), session.sessionKey()), compute);
        } catch (ClientLeft e) {
            return;
        }
        var outcome = TurnOutcome.of(result, run.clientTools());
        pending.remember(run.owner(), outcome.toolCalls(), result.messages());
        if (outcome.stopReason().completed() && outcome.output() != null && handle.get() != null
                && FileLibrary.mayHaveDelivered(result.messages())) {
            var footer = DeliveredLinks.of(ctx.service(FileLibrary.class), exchange).footer(handle.get().id());
            if (footer.isPresent()) outcome = outcome.withOutput(outcome.output() + footer.get());
        }
        answer(exchange, outcome, shapes, answers);
    }

    /** The messages of a run whose terminal event has been written (its result follows at once). */
    private static List<Message> awaitMessages(RunHandle run) {
        try {
            return run.await().messages();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /** The answers' JSON, written without a tree; its buffers pooled across the turns' virtual threads. */
    static JsonFactory answerJson() {
        return JsonFactory.builder().recyclerPool(JsonRecyclerPools.newConcurrentDequePool()).build();
    }

    static void answer(HttpExchange exchange, TurnOutcome outcome, ChatCompletions shapes, JsonFactory json) {
        if (outcome.hardFailure()) {
            exchange.header("X-Hermes-Completed", "false")
                    .header("X-Hermes-Partial", String.valueOf(outcome.stopReason().partial()))
                    .header("x-should-retry", "false");
            exchange.respond(502, ChatCompletions.hardFailure(outcome));
            return;
        }
        if (!outcome.stopReason().completed()) {
            exchange.header("X-Hermes-Completed", "false")
                    .header("X-Hermes-Partial", String.valueOf(outcome.stopReason().partial()))
                    .header("X-Hermes-Error", headerSafe(outcome.errorText(), 200));
        }
        exchange.respond(200, JSON_TYPE, shapes.completionBytes(outcome, json));
    }

    private RunHandle start(RunRequest request) {
        try {
            return ctx.runs().start(request, RunOptions.ephemeral()).handle();
        } catch (RunRejectedException e) {
            throw rejected(e);
        }
    }

    /** @param caller the caller's key: the run, its session and its memory are that key's */
    private RunRequest runRequest(ChatRequest request, SessionHeaders session, String sessionId, Caller caller) {
        var owner = caller.name();
        // A continuation: the server's own steps of the turn the client answers go back where the client's view of
        // them (its calls) stood, then the history is paired and split.
        var turn = ToolTranscript.split(pending.splice(owner, request.messages()));
        if (turn.input().isEmpty())
            throw ApiError.badRequest("no_user_message", "No user message found in messages", null).exception();
        var messages = new ArrayList<Message>();
        // The stored transcript replaces the body history when the client names its session ({@code X-Hermes-Session-Id}).
        messages.addAll(session.sessionId() != null ? ctx.sessions().transcript(owner, sessionId) : turn.history());
        messages.addAll(turn.input());
        var instructions = request.systemText().isEmpty() ? null : request.systemText();
        return new RunRequest(upstreamModel(request, caller), messages, instructions, List.of(), sessionId,
                session.sessionKey(), request.options(), 0, Map.of("source", "chat"), request.stream(), owner)
                .withClientTools(request.clientTools());
    }

    /**
     * Model selection: the advertised name (or none) means the configured upstream model (null); the name of a
     * model route ({@code model.routes}) picks that route; another name is sent upstream only with {@code provider}
     * in the body or {@code model.direct_model_requests}, since generic clients hard-code names such as {@code gpt-4o}.
     */
    private String upstreamModel(ChatRequest request, Caller caller) {
        var direct = ctx.global().directModelRequests() || request.body().path("provider").isTextual();
        return dev.caduceus.support.wire.ModelField.resolve(ctx, caller, request.model(), direct);
    }

    /** {@code api-} + the first 16 hex of sha256(system text + "\n" + first user text). */
    static String derivedSessionId(ChatRequest request) {
        return "api-" + IdempotencyCache.sha256Hex(request.systemText() + "\n" + request.firstUserText())
                .substring(0, 16);
    }

    /** 503 draining, 503 model not configured, 429 at capacity (with retry hints). */
    static HttpStatusException rejected(RunRejectedException e) {
        return e.toApiError().exception();
    }

    private static String headerSafe(String text, int max) {
        var flat = text.replaceAll("[\\r\\n\\x00]+", " ");
        return flat.length() <= max ? flat : flat.substring(0, max);
    }

    /** The client left a non-streaming request; nothing is answered or cached. */
    private static final class ClientLeft extends RuntimeException {
        ClientLeft() {
            super("client left", null, false, false);
        }
    }
}
