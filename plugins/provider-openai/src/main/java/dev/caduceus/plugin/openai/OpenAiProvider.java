package dev.caduceus.plugin.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.model.ModelRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The {@code openai} {@link ModelProvider}: {@code POST {base_url}/chat/completions} over
 * HTTP/1.1 ({@link Http1Client}, blocking on the caller's virtual thread), streamed as SSE and parsed line by line as bytes arrive, or one
 * JSON answer when {@code model.stream} is false (or the request says {@code stream=false}).
 *
 * <p>Threading: thread-safe; {@link #stream} blocks on the caller's thread and delivers events there.
 * Failures are {@link ModelException}s and never retried here (the agent loop owns the 2/4/8 s
 * policy), except that a 400 naming {@code stream_options} is retried once without it, and the field
 * is then omitted for this provider's lifetime. Cancellation aborts the HTTP exchange and
 * {@code stream} throws a non-retryable {@code ModelException("Model call cancelled")} without a
 * {@code Finish}. Lifecycle: {@link #close()} releases the pooled connections and the deadline timer.
 */
public final class OpenAiProvider implements ModelProvider, AutoCloseable {
    /** The provider id. */
    public static final String ID = "openai";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_ERROR_BODY = 64 * 1024;
    /** The JDK client sent its own product name; upstream logs and rate limiters may key on one. */
    private static final String USER_AGENT = "caduceus-provider-openai";
    /** How long to wait for a stream's framing to end after {@code [DONE]}, to keep the connection. */
    private static final Duration END_OF_STREAM_WAIT = Duration.ofMillis(20);

    private final ModelSettings settings;
    private final ObjectMapper json = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
    private final ChatRequestBody bodies;
    private final UpstreamErrors errors;
    private final Http1Client http = new Http1Client(CONNECT_TIMEOUT);
    private final ScheduledExecutorService deadlines;
    private final AtomicBoolean omitStreamOptions = new AtomicBoolean();
    private volatile URI endpoint;

    public OpenAiProvider(ModelSettings settings) {
        this.settings = requireNonNull(settings, "settings");
        this.bodies = new ChatRequestBody(json, settings);
        this.errors = new UpstreamErrors(json, settings.apiKey());
        var timer = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon().name("openai-deadlines").factory());
        timer.setRemoveOnCancelPolicy(true); // a finished call's deadline must not linger for timeout_seconds
        this.deadlines = timer;
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
        var events = new CallEvents(json, errors, sink);
        try (var call = UpstreamCall.start(http, httpRequest(request, streaming, streamOptions), cancel, deadlines,
                settings.timeout())) {
            try {
                var response = call.response();
                try (var body = response.body()) {
                    if (response.status() >= 400) {
                        var text = new String(body.readNBytes(MAX_ERROR_BODY), UTF_8);
                        if (streamOptions && response.status() == 400 && text.contains("stream_options"))
                            return false;
                        throw errors.status(response.status(), text, response.headers().firstValue("Retry-After"));
                    }
                    if (streaming && isEventStream(response)) readStream(body, events, call);
                    else readCompletion(body, events);
                }
            } catch (IOException e) {
                throw failure(call, e, events);
            }
            if (call.cancelled()) throw cancelled();
            return true;
        }
    }

    private void readStream(ResponseBody body, CallEvents events, UpstreamCall call) throws IOException, ModelException {
        var reader = new BufferedReader(new InputStreamReader(body, UTF_8));
        var data = new StringBuilder();
        boolean done = false;
        for (String line; !done && (line = reader.readLine()) != null; ) {
            if (line.startsWith("data:")) {
                if (!data.isEmpty()) data.append('\n');
                data.append(line, line.startsWith("data: ") ? 6 : 5, line.length());
            } else if (line.isEmpty() && !data.isEmpty()) {
                done = dispatch(data.toString(), events);
                data.setLength(0);
            } // comments (":"), "event:" and "id:" lines carry nothing for chat completions
        }
        if (!done && !data.isEmpty()) done = dispatch(data.toString(), events);
        if (call.cancelled() || call.timedOut()) throw new IOException("aborted");
        if (!done && !events.finished())
            throw errors.transport("Upstream stream ended unexpectedly", null, events.emitted());
        events.finish();
        // [DONE] comes just before the response's last chunk: read that too, so the connection is reused
        if (done) body.skipRemainder(END_OF_STREAM_WAIT, MAX_ERROR_BODY);
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
        var text = new String(body.readAllBytes(), UTF_8);
        try {
            events.completion(json.readTree(text), text);
        } catch (JsonProcessingException e) {
            throw errors.badAnswer("Upstream response is not valid JSON", text, false);
        }
    }

    private Http1Request httpRequest(ModelRequest request, boolean streaming, boolean streamOptions)
            throws ModelException {
        byte[] body;
        try {
            body = json.writeValueAsBytes(bodies.build(request, streaming, streamOptions));
        } catch (JsonProcessingException e) {
            throw new ModelException("Cannot serialize the upstream request: " + e.getOriginalMessage(), false, 0, e);
        }
        var headers = new LinkedHashMap<String, String>();
        headers.put("User-Agent", USER_AGENT);
        headers.put("Content-Type", "application/json");
        headers.put("Accept", streaming ? "text/event-stream" : "application/json");
        if (settings.apiKey() != null && !settings.apiKey().isBlank())
            headers.put("Authorization", "Bearer " + settings.apiKey());
        try {
            return Http1Request.post(endpoint(), headers, body);
        } catch (IllegalArgumentException e) {
            // a base URL that is not http(s), or a key with a line break: a configuration error, not retryable
            throw new ModelException("Cannot build the upstream request: " + e.getMessage(), false, 0, e);
        }
    }

    /** {@code {base_url}/chat/completions}, checked once (parsing it was ~1 % of a turn). */
    private URI endpoint() {
        var uri = endpoint;
        if (uri == null) {
            var base = settings.baseUrl().endsWith("/")
                    ? settings.baseUrl().substring(0, settings.baseUrl().length() - 1) : settings.baseUrl();
            uri = URI.create(base + "/chat/completions");
            Origin.of(uri); // http or https with a host, or fail here rather than mid-exchange
            endpoint = uri;
        }
        return uri;
    }

    private ModelException failure(UpstreamCall call, IOException e, CallEvents events) {
        boolean emitted = events.emitted();
        if (call.cancelled()) return cancelled();
        if (call.timedOut() || e instanceof SocketTimeoutException) // only connects and handshakes have a timeout
            return errors.transport("Upstream model timed out after " + settings.timeout().toSeconds() + " s", null,
                    emitted);
        if (e instanceof ConnectException)
            return errors.transport("Upstream model unreachable at " + settings.baseUrl(), e, emitted);
        if (call.answered()) return errors.transport("Upstream stream ended unexpectedly", e, emitted);
        return errors.transport("Upstream connection failed", e, emitted);
    }

    private static boolean isEventStream(Http1Response response) {
        // A server that ignores "stream": true answers one JSON document; read it as such.
        return !response.headers().firstValue("content-type").orElse("text/event-stream").startsWith("application/json");
    }

    private static ModelException cancelled() {
        return new ModelException("Model call cancelled", false, 0, null);
    }

    @Override
    public void close() {
        http.close();
        deadlines.shutdownNow();
    }
}
