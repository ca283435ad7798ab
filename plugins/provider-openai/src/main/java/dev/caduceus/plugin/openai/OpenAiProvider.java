package dev.caduceus.plugin.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.caduceus.spi.Cancellation;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.model.ModelSettings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The {@code openai} {@link ModelProvider}: {@code POST {base_url}/chat/completions} over
 * {@code java.net.http} (HTTP/1.1), streamed as SSE and parsed line by line as bytes arrive, or one
 * JSON answer when {@code model.stream} is false (or the request says {@code stream=false}).
 *
 * <p>Threading: thread-safe; {@link #stream} blocks on the caller's thread and delivers events there.
 * Failures are {@link ModelException}s and never retried here (the agent loop owns the 2/4/8 s
 * policy), except that a 400 naming {@code stream_options} is retried once without it, and the field
 * is then omitted for this provider's lifetime. Cancellation aborts the HTTP exchange and
 * {@code stream} throws a non-retryable {@code ModelException("Model call cancelled")} without a
 * {@code Finish}. Lifecycle: {@link #close()} releases the HTTP client and the deadline timer.
 */
public final class OpenAiProvider implements ModelProvider, AutoCloseable {
    /** The provider id. */
    public static final String ID = "openai";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_ERROR_BODY = 64 * 1024;

    private final ModelSettings settings;
    private final ObjectMapper json = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
    private final ChatRequestBody bodies;
    private final UpstreamErrors errors;
    private final ExecutorService httpExecutor = Executors.newVirtualThreadPerTaskExecutor();
    private HttpClient http; // built on first call: building one initialises the JDK's default TLS context (loads and parses the CA certificates, ~0.15 s of a cold start); guarded by this
    private final ScheduledExecutorService deadlines;
    private final AtomicBoolean omitStreamOptions = new AtomicBoolean();

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
        try (var call = UpstreamCall.send(http(), httpRequest(request, streaming, streamOptions), cancel, deadlines,
                settings.timeout())) {
            try {
                var response = call.response();
                try (var body = response.body()) {
                    if (response.statusCode() >= 400) {
                        var text = new String(body.readNBytes(MAX_ERROR_BODY), UTF_8);
                        if (streamOptions && response.statusCode() == 400 && text.contains("stream_options"))
                            return false;
                        throw errors.status(response.statusCode(), text, response.headers().firstValue("Retry-After"));
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

    private void readStream(InputStream body, CallEvents events, UpstreamCall call) throws IOException, ModelException {
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

    private HttpRequest httpRequest(ModelRequest request, boolean streaming, boolean streamOptions)
            throws ModelException {
        byte[] body;
        try {
            body = json.writeValueAsBytes(bodies.build(request, streaming, streamOptions));
        } catch (JsonProcessingException e) {
            throw new ModelException("Cannot serialize the upstream request: " + e.getOriginalMessage(), false, 0, e);
        }
        var base = settings.baseUrl().endsWith("/") ? settings.baseUrl().substring(0, settings.baseUrl().length() - 1)
                : settings.baseUrl();
        var builder = HttpRequest.newBuilder(URI.create(base + "/chat/completions")).timeout(settings.timeout())
                .header("Content-Type", "application/json")
                .header("Accept", streaming ? "text/event-stream" : "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (settings.apiKey() != null && !settings.apiKey().isBlank())
            builder.header("Authorization", "Bearer " + settings.apiKey());
        return builder.build();
    }

    private ModelException failure(UpstreamCall call, IOException e, CallEvents events) {
        boolean emitted = events.emitted();
        if (call.cancelled()) return cancelled();
        if (call.timedOut() || e instanceof HttpTimeoutException)
            return errors.transport("Upstream model timed out after " + settings.timeout().toSeconds() + " s", null,
                    emitted);
        if (e instanceof ConnectException)
            return errors.transport("Upstream model unreachable at " + settings.baseUrl(), e, emitted);
        if (call.answered()) return errors.transport("Upstream stream ended unexpectedly", e, emitted);
        return errors.transport("Upstream connection failed", e, emitted);
    }

    private static boolean isEventStream(HttpResponse<?> response) {
        // A server that ignores "stream": true answers one JSON document; read it as such.
        return !response.headers().firstValue("content-type").orElse("text/event-stream").startsWith("application/json");
    }

    private static ModelException cancelled() {
        return new ModelException("Model call cancelled", false, 0, null);
    }

    private synchronized HttpClient http() {
        if (http == null)
            http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(CONNECT_TIMEOUT)
                    .executor(httpExecutor).build();
        return http;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (http != null) http.close();
        }
        httpExecutor.shutdownNow();
        deadlines.shutdownNow();
    }
}
