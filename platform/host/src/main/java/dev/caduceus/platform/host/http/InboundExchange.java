package dev.caduceus.platform.host.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.caduceus.spi.http.EventStream;
import dev.caduceus.spi.http.HttpExchange;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Fields;

/**
 * {@link HttpExchange} over one Jetty request and response. Confined to the handler's (virtual)
 * thread, except {@link #onClientGone} callbacks. Owns the answer: a handler responds once, by
 * {@link #respond} or {@link #openEventStream}; {@link DispatchHandler} finishes whatever is left.
 */
final class InboundExchange implements HttpExchange {
    /** How much of an unread request body an answer discards before it closes the connection instead. */
    private static final long MAX_DRAINED_BYTES = 64 * 1024;

    private final Request request;
    private final ResponseWriter out;
    private final Router.Match match;
    private final ObjectMapper hostMapper;
    private final ObjectReader bodies;
    private final long maxBodyBytes;
    private final BodyBinder binder;
    private Fields query;
    private JsonNode body;
    private boolean answered;
    private SseEventStream stream;
    private BodyStream bodyStream;
    private final RequestRecorder recorder;
    private final BodyBudget budget;
    private final BodyPace pace;

    InboundExchange(Request request, ResponseWriter out, Router.Match match, ObjectMapper hostMapper,
                    ObjectReader bodies, long maxBodyBytes, BodyBudget budget, BodyPace pace, RequestRecorder recorder) {
        this.pace = pace;
        this.recorder = recorder;
        this.budget = budget;
        this.request = request;
        this.out = out;
        this.match = match;
        this.hostMapper = hostMapper;
        this.bodies = bodies;
        this.maxBodyBytes = maxBodyBytes;
        this.binder = new BodyBinder(match.entry().mapper());
    }

    @Override
    public String method() {
        return request.getMethod().toUpperCase(Locale.ROOT);
    }

    @Override
    public String path() {
        return Request.getPathInContext(request);
    }

    @Override
    public String pathParam(String name) {
        var value = match.pathParams().get(name);
        if (value == null)
            throw new IllegalArgumentException("No path parameter '" + name + "' in " + match.entry().template());
        return value;
    }

    @Override
    public Optional<String> query(String name) {
        return Optional.ofNullable(query().getValue(name));
    }

    @Override
    public List<String> queryAll(String name) {
        var values = query().getValues(name); // null when the parameter is absent
        return values == null ? List.of() : List.copyOf(values);
    }

    private Fields query() {
        if (query == null) query = Request.extractQueryParameters(request);
        return query;
    }

    @Override
    public Optional<String> header(String name) {
        return Optional.ofNullable(request.getHeaders().get(name));
    }

    @Override
    public JsonNode body() {
        if (bodyStream != null) throw new IllegalStateException("the body is being streamed (bodyStream())");
        if (body == null) {
            var share = budget.share(); // held until the exchange completes: the tree lives as long
            if (budget.limited()) Request.addCompletionListener(request, failure -> share.release());
            var bytes = BodyReader.read(request, maxBodyBytes, share, pace);
            body = parse(bytes);
        }
        return body;
    }

    private JsonNode parse(byte[] bytes) {
        if (bytes.length == 0) throw ApiErrors.invalidJson().exception();
        try {
            var node = bodies.readTree(bytes);
            if (node == null || node.isMissingNode()) throw ApiErrors.invalidJson().exception();
            return node;
        } catch (IOException e) {
            throw ApiErrors.invalidJson().exception();
        }
    }

    /** Only for an upload route ({@link ServedRoute#maxBodyBytes()}), whose limit it enforces as it reads. */
    @Override
    public java.io.InputStream bodyStream() {
        if (match.entry().maxBodyBytes() <= 0)
            throw new IllegalStateException("bodyStream() is for routes registered with Routes.upload: "
                    + match.entry().template());
        if (body != null || bodyStream != null) throw new IllegalStateException("the body was already read");
        bodyStream = new BodyStream(request, match.entry().maxBodyBytes(), pace);
        return bodyStream;
    }

    @Override
    public <T> T bodyAs(Class<T> type) {
        return binder.bind(body(), type);
    }

    @Override
    public dev.caduceus.spi.http.Caller caller() {
        return request.getAttribute(AuthHandler.ATTRIBUTE) instanceof Authenticated a
                ? a.caller() : dev.caduceus.spi.http.Caller.ANONYMOUS;
    }

    @Override
    public String requestId() {
        return DefaultHeadersHandler.requestId(request);
    }

    @Override
    public HttpExchange header(String name, String value) {
        if (out.response().isCommitted()) throw new IllegalStateException("response already committed");
        out.response().getHeaders().put(name, value);
        return this;
    }

    @Override
    public void respond(int status, JsonNode body) {
        byte[] bytes;
        try {
            bytes = hostMapper.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot serialize response body", e);
        }
        begin(status);
        out.response().getHeaders().put(HttpHeader.CONTENT_TYPE, ErrorBodies.JSON);
        out.write(true, ByteBuffer.wrap(bytes));
    }

    @Override
    public void respond(int status) {
        begin(status);
        out.write(true, null);
    }

    @Override
    public void respond(int status, String contentType, byte[] body) {
        java.util.Objects.requireNonNull(contentType, "contentType");
        begin(status);
        out.response().getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        out.write(true, ByteBuffer.wrap(body));
    }

    @Override
    public void respond(int status, String contentType, long length, java.io.InputStream content) throws IOException {
        java.util.Objects.requireNonNull(contentType, "contentType");
        try (content) {
            begin(status);
            var headers = out.response().getHeaders();
            headers.put(HttpHeader.CONTENT_TYPE, contentType);
            if (length >= 0) headers.put(HttpHeader.CONTENT_LENGTH, length);
            var buffer = new byte[64 * 1024];
            long sent = 0;
            while (length < 0 || sent < length) {
                int n = content.read(buffer, 0, length < 0 ? buffer.length : (int) Math.min(buffer.length, length - sent));
                if (n < 0) break;
                sent += n;
                if (!out.write(false, ByteBuffer.wrap(buffer, 0, n))) return; // the client is gone
            }
            if (length >= 0 && sent < length)
                throw new IOException("the content ended after " + sent + " of " + length + " bytes");
            out.write(true, null);
        }
    }

    @Override
    public EventStream openEventStream() {
        markAnswered();
        stream = SseEventStream.open(out, hostMapper);
        recorder.streamOpened(request);
        return stream;
    }

    @Override
    public void onClientGone(Runnable callback) {
        out.onGone(callback);
        if (bodyConsumed()) out.watchHangups();
    }

    /** Whether nothing of the request's body is left for the connection to read (see {@link HangupWatch}). */
    private boolean bodyConsumed() {
        if (body != null) return true;
        if (bodyStream != null) return bodyStream.ended();
        return request.getLength() == 0
                || (request.getLength() < 0 && !request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING));
    }

    /** Whether a hang-up watch runs for this request (for tests). */
    boolean watchingHangups() {
        return out.watchingHangups();
    }

    /** Whether the handler has answered (or started to). */
    boolean answered() {
        return answered;
    }

    /** Ends the response the handler left open: closes its event stream, or answers 204. */
    void finish() {
        if (stream != null) stream.close();
        else if (!answered) respond(204);
    }

    /** After a failure: ends whatever was started (an open event stream, a half-written answer). */
    void finishQuietly() {
        if (stream != null) stream.close();
        else if (!out.response().hasLastWrite()) out.write(true, null);
    }

    String matchTemplate() {
        return match.entry().template();
    }

    String pluginId() {
        return match.entry().pluginId();
    }

    private void begin(int status) {
        markAnswered();
        out.response().setStatus(status);
        closeIfBodyLeft();
    }

    /**
     * An answer given without reading the request's body (an early error, or a route that ignores it):
     * what of the body has arrived is discarded now, and if the rest has not, the answer says
     * {@code Connection: close}. Jetty would close such a connection after the answer anyway, and a
     * client that was not told would send its next request on it and meet EOF.
     */
    void closeIfBodyLeft() {
        if (bodyConsumed() || out.response().isCommitted()) return;
        var headers = out.response().getHeaders();
        if (headers.contains(HttpHeader.CONNECTION, "close")) return;
        long drained = 0;
        while (drained <= MAX_DRAINED_BYTES) {
            var chunk = request.read();
            if (chunk == null) break;                       // the rest has not arrived
            drained += chunk.remaining();
            chunk.release();
            if (org.eclipse.jetty.io.Content.Chunk.isFailure(chunk)) break;
            if (chunk.isLast()) return;                     // all of it was here: the connection stays usable
        }
        headers.put(HttpHeader.CONNECTION, "close");
    }

    private void markAnswered() {
        if (answered) throw new IllegalStateException("the handler has already answered this request");
        answered = true;
    }
}
