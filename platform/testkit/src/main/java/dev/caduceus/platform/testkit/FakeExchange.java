package dev.caduceus.platform.testkit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.EventStream;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.HttpStatusException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An {@link HttpExchange} built by a test and handed straight to a handler; it records the answer.
 * Use {@link #call(HttpHandler)} to run a handler the way the host does (an
 * {@link HttpStatusException} becomes the recorded error answer). Confined to one thread.
 */
public final class FakeExchange implements HttpExchange {
    private byte[] answerBytes;
    private final ObjectMapper json;
    private final String method;
    private final String path;
    private final Map<String, String> pathParams = new LinkedHashMap<>();
    private final Map<String, List<String>> query = new LinkedHashMap<>();
    private final Map<String, String> requestHeaders = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    private final Map<String, String> responseHeaders = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    private final List<Runnable> goneCallbacks = new CopyOnWriteArrayList<>();
    private String rawBody = "";
    private JsonNode parsedBody;
    private Integer status;
    private JsonNode responseBody;
    private volatile RecordingEventStream stream;
    private RecordingEventStream pendingStream;

    public FakeExchange(ObjectMapper json, String method, String path) {
        this.json = json;
        this.method = method.toUpperCase(Locale.ROOT);
        this.path = path;
    }

    public FakeExchange pathParam(String name, String value) { pathParams.put(name, value); return this; }

    public FakeExchange queryParam(String name, String value) {
        query.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        return this;
    }

    public FakeExchange requestHeader(String name, String value) { requestHeaders.put(name, value); return this; }

    public FakeExchange body(String raw) { rawBody = raw; parsedBody = null; return this; }

    /** The stream {@link #openEventStream()} will hand out (to script a disconnect beforehand). */
    public FakeExchange eventStream(RecordingEventStream s) { pendingStream = s; return this; }

    /** Runs {@code handler} and records its answer, as the host would. */
    public FakeExchange call(HttpHandler handler) throws Exception {
        try {
            handler.handle(this);
            if (status == null && stream == null) status = 204;
        } catch (HttpStatusException e) {
            recordError(e.error());
        }
        return this;
    }

    private void recordError(ApiError error) {
        error.headers().forEach(responseHeaders::put);
        status = error.status();
        var envelope = json.createObjectNode();
        envelope.putObject("error").put("message", error.message()).put("type", error.type())
                .put("param", error.param()).put("code", error.code());
        responseBody = envelope;
    }

    /** Simulates the client leaving: runs the registered callbacks. */
    public void disconnect() { goneCallbacks.forEach(Runnable::run); }

    /** Whether the handler has registered an {@link #onClientGone} callback: wait for it before {@link #disconnect()}. */
    public boolean watchesClientGone() { return !goneCallbacks.isEmpty(); }

    public int status() { return status == null ? 0 : status; }

    public JsonNode responseBody() { return responseBody; }

    public Optional<String> responseHeader(String name) { return Optional.ofNullable(responseHeaders.get(name)); }

    /** The recorded stream, or null when none was opened. */
    public RecordingEventStream stream() { return stream; }

    @Override public String method() { return method; }

    @Override public String path() { return path; }

    @Override
    public String pathParam(String name) {
        var value = pathParams.get(name);
        if (value == null) throw new IllegalArgumentException("no path parameter " + name);
        return value;
    }

    @Override
    public Optional<String> query(String name) {
        var values = query.get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    @Override public List<String> queryAll(String name) { return List.copyOf(query.getOrDefault(name, List.of())); }

    @Override public Optional<String> header(String name) { return Optional.ofNullable(requestHeaders.get(name)); }

    @Override
    public JsonNode body() {
        if (parsedBody == null) {
            try {
                var node = rawBody.isBlank() ? null : json.readTree(rawBody);
                if (node == null || node.isMissingNode()) throw new HttpStatusException(invalidJson());
                parsedBody = node;
            } catch (JsonProcessingException e) {
                throw new HttpStatusException(invalidJson());
            }
        }
        return parsedBody;
    }

    private static ApiError invalidJson() {
        return ApiError.badRequest("invalid_json", "Invalid JSON in request body", null);
    }

    @Override
    public <T> T bodyAs(Class<T> type) {
        try {
            return json.treeToValue(body(), type);
        } catch (JsonProcessingException e) {
            throw new HttpStatusException(ApiError.badRequest("invalid_request", e.getOriginalMessage(), null));
        }
    }

    @Override public String requestId() { return "req_test"; }

    private dev.caduceus.spi.http.Caller caller = dev.caduceus.spi.http.Caller.ADMIN_CALLER;

    /** The key the request presents (default: the admin key). */
    public FakeExchange caller(dev.caduceus.spi.http.Caller who) {
        this.caller = who;
        return this;
    }

    @Override public dev.caduceus.spi.http.Caller caller() { return caller; }

    @Override public HttpExchange header(String name, String value) { responseHeaders.put(name, value); return this; }

    @Override
    public void respond(int status, JsonNode body) {
        ensureUnanswered();
        this.status = status;
        this.responseBody = body;
    }

    @Override
    public void respond(int status) {
        ensureUnanswered();
        this.status = status;
    }

    /** Records status and content type; the bytes are kept as {@link #answerBytes()}. */
    @Override
    public void respond(int status, String contentType, byte[] body) {
        ensureUnanswered();
        this.status = status;
        this.responseHeaders.put("Content-Type", contentType);
        this.answerBytes = body.clone();
    }

    /** The body of a non-JSON answer, or null. */
    public byte[] answerBytes() {
        return answerBytes == null ? null : answerBytes.clone();
    }

    @Override
    public EventStream openEventStream() {
        ensureUnanswered();
        status = 200;
        stream = pendingStream != null ? pendingStream : new RecordingEventStream();
        return stream;
    }

    private void ensureUnanswered() {
        if (status != null) throw new IllegalStateException("already answered with " + status);
    }

    @Override public void onClientGone(Runnable callback) { goneCallbacks.add(callback); }
}
