package dev.caduceus.plugin.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Egress;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import dev.caduceus.spi.tool.Cancellation;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The {@code openai} {@link ModelProvider}: {@code POST {base_url}/chat/completions} through the
 * host's outbound client ({@link OutboundHttp}, blocking on the caller's virtual thread), streamed as
 * server-sent events read with the host's reader as they arrive, or one JSON answer when
 * {@code model.stream} is false (or the request says {@code stream=false}).
 *
 * <p>Threading: thread-safe; {@link #stream} blocks on the caller's thread and delivers events there.
 * Failures are {@link ModelException}s and never retried here (the agent loop owns the 2/4/8 s
 * policy), except that a 400 naming {@code stream_options} is retried once without it, and the field
 * is then omitted for this provider's lifetime; the host's client never re-sends a request once a
 * byte of it was written, so a call is never duplicated. Cancellation aborts the HTTP exchange and
 * {@code stream} throws a non-retryable {@code ModelException("Model call cancelled")} without a
 * {@code Finish}. Lifecycle: the {@link OutboundHttp} is the host's; {@link #close()} stops only the
 * timer that bounds the read after {@code [DONE]}.
 */
public final class OpenAiProvider implements ModelProvider, AutoCloseable {
    /** The provider id. */
    public static final String ID = "openai";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_ERROR_BODY = 64 * 1024;
    /** Upstream logs and rate limiters may key on a product name. */
    private static final String USER_AGENT = "caduceus-provider-openai";
    /** How long to wait for a stream's framing to end after {@code [DONE]}, to keep the connection. */
    private static final Duration END_OF_STREAM_WAIT = Duration.ofMillis(20);

    private final ModelSettings settings;
    private final OutboundHttp http;
    /**
     * Its buffers come from a pool shared by every thread: Jackson's default keeps them per thread, and
     * a model call runs on a virtual thread of its own, so each call allocated fresh ones (~18 KB of a
     * chat turn's garbage; bench/README.md, issue 48).
     */
    private final ObjectMapper json = JsonMapper.builder(JsonFactory.builder()
                    .recyclerPool(JsonRecyclerPools.newConcurrentDequePool()).build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
    private final ObjectReader answers = Completion.trees(json);
    private final RequestBodies encoded = new RequestBodies();
    private final ChatRequestBody bodies;
    private final UpstreamErrors errors;
    private final ScheduledExecutorService timer;
    private final AtomicBoolean omitStreamOptions = new AtomicBoolean();
    private volatile OutboundHttp.Request streamingTemplate;
    private volatile OutboundHttp.Request completionTemplate;

    /**
     * @param settings the {@code model} section
     * @param http     the host's outbound client ({@code PlatformContext.outbound()})
     */
    public OpenAiProvider(ModelSettings settings, OutboundHttp http) {
        this(settings, http, drainTimer());
    }

    private OpenAiProvider(ModelSettings settings, OutboundHttp http, ScheduledExecutorService timer) {
        this.settings = requireNonNull(settings, "settings");
        this.http = requireNonNull(http, "http");
        this.bodies = new ChatRequestBody(json, settings);
        this.errors = new UpstreamErrors(json, settings.apiKey());
        this.timer = timer;
    }

    private static ScheduledExecutorService drainTimer() {
        var drainTimer = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon().name("openai-drain").factory());
        drainTimer.setRemoveOnCancelPolicy(true); // almost every limit is cancelled: do not keep them queued
        return drainTimer;
    }

    /** A deployment's upstream: the same client, call options and drain timer; {@link #close} of this one stops it. */
    @Override
    public ModelProvider at(Endpoint endpoint) {
        return new OpenAiProvider(settings.at(endpoint.baseUrl(), endpoint.apiKey(), endpoint.model(), endpoint.timeout()), http, timer);
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public boolean configured() {
        return settings.configured();
    }

    @Override
    public void stream(ModelRequest request, Consumer<ModelEvent> sink, Cancellation cancel) throws ModelException {
        requireNonNull(request, "request");
        requireNonNull(sink, "sink");
        requireNonNull(cancel, "cancel");
        if (!configured()) throw new ModelException("No model provider is configured", false, 0, null);
        boolean streaming = request.stream() && settings.stream();
        boolean streamOptions = streaming && !omitStreamOptions.get();
        if (call(request, streaming, streamOptions, sink, cancel)) return;
        omitStreamOptions.set(true);
        call(request, streaming, false, sink, cancel);
    }

    /** One exchange; {@code false} when the upstream rejected {@code stream_options} (nothing was emitted). */
    private boolean call(ModelRequest request, boolean streaming, boolean streamOptions, Consumer<ModelEvent> sink,
                         Cancellation cancel) throws ModelException {
        if (cancel.isCancelled()) throw cancelled();
        try (var body = encode(request, streaming, streamOptions)) { // its buffer is reused once the exchange ended
            return exchange(httpRequest(body, streaming), streaming, streamOptions, new CallEvents(json, errors, sink), cancel);
        }
    }

    private boolean exchange(OutboundHttp.Request outbound, boolean streaming, boolean streamOptions, CallEvents events,
                             Cancellation cancel) throws ModelException {
        long started = System.nanoTime();
        UpstreamCall opened;
        try {
            opened = UpstreamCall.open(http, outbound, cancel);
        } catch (IllegalArgumentException e) {
            // the model.tls files cannot be read or parsed: the operator's to fix
            throw new ModelException("Cannot build the upstream request: " + e.getMessage(), false, 0, e);
        }
        try (var call = opened) {
            try {
                var response = call.send();
                if (response.status() >= 300) {
                    var text = response.text(MAX_ERROR_BODY);
                    if (streamOptions && response.status() == 400 && text.contains("stream_options")) return false;
                    throw errors.status(response.status(), text, response.header("Retry-After"));
                }
                if (streaming && isEventStream(response)) readStream(response, events, call);
                else readCompletion(response.body(), events);
            } catch (IOException e) {
                throw failure(call, e, events, started);
            }
            if (call.cancelled()) throw cancelled();
            return true;
        }
    }

    private void readStream(OutboundHttp.Response response, CallEvents events, UpstreamCall call)
            throws IOException, ModelException {
        var stream = response.events();
        boolean done = false;
        while (!done) {
            var event = stream.next();
            if (event.isEmpty()) break;
            var data = event.get().data();
            // the event name, id and empty events carry nothing for chat completions
            if (!data.isEmpty()) done = dispatch(data, events);
        }
        if (call.cancelled()) throw cancelled();
        if (!done && !events.finished())
            throw errors.transport("Upstream stream ended unexpectedly", null, events.emitted());
        events.finish();
        // [DONE] comes just before the end of the response: read that too, so the connection is reused
        if (done) call.drain(stream, timer, END_OF_STREAM_WAIT);
    }

    /** Handles one SSE event's data; {@code true} on {@code [DONE]}. */
    private boolean dispatch(String data, CallEvents events) throws ModelException {
        if (data.strip().equals("[DONE]")) return true;
        try {
            events.chunk(json.readTree(data));
        } catch (JsonProcessingException e) {
            throw errors.badAnswer("Upstream sent a malformed stream chunk", data, events.emitted());
        }
        return false;
    }

    private void readCompletion(InputStream body, CallEvents events) throws IOException, ModelException {
        var bytes = body.readAllBytes(); // parsed from the bytes: a String of them is made only for an error
        try {
            events.completion(Completion.read(answers, bytes), bytes);
        } catch (JsonProcessingException e) {
            throw errors.badAnswer("Upstream response is not valid JSON", new String(bytes, UTF_8), false);
        }
    }

    private RequestBodies.Encoded encode(ModelRequest request, boolean streaming, boolean streamOptions)
            throws ModelException {
        try {
            return encoded.write(json, g -> bodies.write(g, request, streaming, streamOptions));
        } catch (JsonProcessingException e) {
            throw new ModelException("Cannot serialize the upstream request: " + e.getOriginalMessage(), false, 0, e);
        }
    }

    private OutboundHttp.Request httpRequest(RequestBodies.Encoded body, boolean streaming) throws ModelException {
        try {
            return template(streaming).withBody(body.bytes());
        } catch (IllegalArgumentException e) {
            // a base URL that is not http(s), or a key with a line break: a configuration error, not retryable
            throw new ModelException("Cannot build the upstream request: " + e.getMessage(), false, 0, e);
        }
    }

    /**
     * The upstream request without its body, built once per kind: all of it comes from the settings
     * (building and checking it on every call, URI parsing included, was ~1 % of a turn).
     */
    private OutboundHttp.Request template(boolean streaming) {
        var template = streaming ? streamingTemplate : completionTemplate;
        if (template != null) return template;
        var base = settings.baseUrl().endsWith("/")
                ? settings.baseUrl().substring(0, settings.baseUrl().length() - 1) : settings.baseUrl();
        template = OutboundHttp.Request.post(URI.create(base + "/chat/completions"), "application/json", null)
                .withHeader("User-Agent", USER_AGENT)
                .withHeader("Accept", streaming ? "text/event-stream" : "application/json")
                .withTimeouts(CONNECT_TIMEOUT, settings.idleTimeout(), settings.timeout())
                .withEgress(Egress.any()) // the operator configured this target
                .withProtocol(settings.protocol())
                .withTls(settings.tls());
        if (settings.apiKey() != null && !settings.apiKey().isBlank())
            template = template.withHeader("Authorization", "Bearer " + settings.apiKey());
        if (streaming) streamingTemplate = template;
        else completionTemplate = template;
        return template;
    }

    /** What a failed exchange means for the loop: the messages and retry verdicts it relies on. */
    private ModelException failure(UpstreamCall call, IOException e, CallEvents events, long started) {
        boolean emitted = events.emitted();
        if (call.cancelled()) return cancelled();
        if (interrupted(e)) {
            Thread.currentThread().interrupt(); // keep the caller's interrupt: it asked to stop
            return cancelled();
        }
        if (!(e instanceof Failure f))
            return errors.transport(call.answered() ? "Upstream stream ended unexpectedly" : "Upstream connection failed",
                    e, emitted);
        return switch (f.kind()) {
            case CANCELLED -> cancelled();
            case TIMEOUT -> errors.transport(timedOut(f, started), null, emitted);
            case UNREACHABLE -> errors.transport("Upstream model unreachable at " + settings.baseUrl(), f, emitted);
            case REDIRECT -> errors.fatal("Upstream model redirected the call, which is never re-sent elsewhere"
                    + " (point model.base_url at the final address)", f);
            case LINE_TOO_LONG -> errors.fatal("Upstream sent a stream line longer than "
                    + OutboundHttp.Request.DEFAULT_MAX_LINE_BYTES / (1024 * 1024) + " MiB", null);
            case REFUSED -> errors.fatal("Upstream model refused by the egress policy", f);
            case PROXY -> errors.transport("Upstream proxy failed", f, emitted);
            case TLS -> errors.transport("Upstream TLS failed", f, emitted);
            case BROKEN -> errors.transport(call.answered() ? "Upstream stream ended unexpectedly"
                    : "Upstream connection failed", f, emitted);
        };
    }

    /** Which of the three limits passed: the call's total, the connect, or the idle silence. */
    private String timedOut(Failure f, long started) {
        if (System.nanoTime() - started >= settings.timeout().toNanos())
            return "Upstream model timed out after " + settings.timeout().toSeconds() + " s";
        if (!f.requestSent())
            return "Upstream model timed out after " + CONNECT_TIMEOUT.toSeconds() + " s connecting to "
                    + settings.baseUrl();
        return "Upstream model timed out after " + settings.idleTimeout().toSeconds() + " s without sending anything";
    }

    /**
     * A body read that an interrupt of the caller's thread ended (the client reports it as a broken
     * read whose cause is a bare {@link InterruptedIOException}; its subclasses are timeouts).
     */
    private static boolean interrupted(IOException e) {
        if (Thread.currentThread().isInterrupted()) return true;
        for (Throwable c = e; c != null; c = c.getCause())
            if (c.getClass() == InterruptedIOException.class) return true;
        return false;
    }

    private static boolean isEventStream(OutboundHttp.Response response) {
        // A server that ignores "stream": true answers one JSON document; read it as such.
        return !response.header("Content-Type").orElse("text/event-stream").startsWith("application/json");
    }

    private static ModelException cancelled() {
        return new ModelException("Model call cancelled", false, 0, null);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
