package dev.caduceus.platform.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.VirtualThreadPool;

/**
 * A real HTTP server on {@code 127.0.0.1} that plays an OpenAI-compatible model: {@code POST
 * /v1/chat/completions} answers with the next scripted {@link Turn} (one turn per request, in
 * {@link #enqueue} order; the {@link #setDefault default} when the queue is empty), streamed as SSE
 * when the request says {@code "stream": true}; {@code GET /v1/models} lists one model. Every request
 * is recorded ({@link #requests}) unless {@link #recordRequests recording is off}.
 *
 * <p>Threading: thread-safe; requests run on virtual threads and nothing is logged per request, so it
 * sustains benchmark load. With no turn left and no default it answers 400 {@code no scripted turn
 * left} (not retryable, so a runtime under test fails fast). Lifecycle: {@link #start()} listens,
 * {@link #close()} stops.
 */
public final class ScriptedUpstream implements AutoCloseable {
    /** The model id {@code GET /v1/models} lists. */
    public static final String MODEL = "scripted-model";
    private static final int ACCEPT_QUEUE = 4096;

    private final ObjectMapper json = new ObjectMapper();
    private final ChatCompletionWire wire = new ChatCompletionWire(json);
    private final ConcurrentLinkedQueue<java.util.function.Function<JsonNode, Turn>> turns = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<RecordedRequest> requests = new ConcurrentLinkedQueue<>();
    private final AtomicLong ids = new AtomicLong();
    private final Server server;
    private final int port;
    private volatile java.util.function.Function<JsonNode, Turn> fallback = body -> null;
    private volatile boolean recording = true;

    private ScriptedUpstream() {
        var pool = new VirtualThreadPool();
        pool.setName("scripted-upstream");
        server = new Server(pool);
        var connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        connector.setAcceptQueueSize(ACCEPT_QUEUE); // the JDK default (50) resets connections under load
        server.addConnector(connector);
        server.setHandler(new ChatHandler());
        try {
            server.start();
        } catch (Exception e) {
            close();
            throw new IllegalStateException("ScriptedUpstream failed to start: " + e.getMessage(), e);
        }
        port = connector.getLocalPort();
    }

    /** Starts a server on a random port of {@code 127.0.0.1}. */
    public static ScriptedUpstream start() {
        return new ScriptedUpstream();
    }

    /** Appends turns; each answers one later chat request. */
    public ScriptedUpstream enqueue(Turn... next) {
        for (var turn : next) {
            requireNonNull(turn, "turn");
            turns.add(body -> turn);
        }
        return this;
    }

    /** The answer when no enqueued turn is left ({@code null}: answer 400). */
    public ScriptedUpstream setDefault(Turn turn) {
        fallback = body -> turn;
        return this;
    }

    /**
     * The answer, computed from the request (the parsed body), when no enqueued turn is left: for tests whose runs
     * call the model concurrently, each answered by what it asks ({@code null}: answer 400).
     */
    public ScriptedUpstream setDefault(java.util.function.Function<JsonNode, Turn> responder) {
        fallback = requireNonNull(responder, "responder");
        return this;
    }

    /** Turns recording on (default) or off (for benchmarks, so memory stays flat). */
    public ScriptedUpstream recordRequests(boolean on) {
        recording = on;
        return this;
    }

    /** {@code http://127.0.0.1:PORT/v1}, what {@code model.base_url} should be. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port + "/v1";
    }

    public int port() {
        return port;
    }

    /** Every recorded request, oldest first. */
    public List<RecordedRequest> requests() {
        return List.copyOf(requests);
    }

    /** The recorded chat-completions requests only (not {@code /v1/models} probes). */
    public List<RecordedRequest> chatRequests() {
        return requests().stream().filter(r -> r.path().endsWith("/chat/completions")).toList();
    }

    /**
     * Appends a turn computed from the request it answers (the parsed body), e.g. an answer that
     * quotes the last tool result: {@code enqueue(Turn::quotingLastToolResult)}.
     */
    public ScriptedUpstream enqueue(java.util.function.Function<JsonNode, Turn> responder) {
        turns.add(requireNonNull(responder, "responder"));
        return this;
    }

    /** Drops every enqueued turn not yet consumed (what follows gets the default turn). */
    public ScriptedUpstream clearQueue() {
        turns.clear();
        return this;
    }

    /** The number of enqueued turns not yet consumed. */
    public int pending() {
        return turns.size();
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("ScriptedUpstream failed to stop", e);
        }
    }

    private final class ChatHandler extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            try {
                var path = Request.getPathInContext(request);
                var body = parse(Content.Source.asString(request, UTF_8));
                if (recording) record(request, path, body);
                if (path.equals("/v1/models") && request.getMethod().equals("GET")) {
                    send(response, 200, "application/json", wire.models(MODEL));
                } else if (path.equals("/v1/chat/completions") && request.getMethod().equals("POST")) {
                    if (!answer(request, body, response, callback)) return true;
                } else {
                    send(response, 404, "application/json", wire.error(404, "Unknown route " + path));
                }
                callback.succeeded();
            } catch (Throwable e) {
                callback.failed(e);
            }
            return true;
        }

        /** Answers one chat request; {@code false} when the connection was cut on purpose. */
        private boolean answer(Request request, JsonNode body, Response response, Callback callback) throws Exception {
            var responder = turns.poll();
            var turn = (responder == null ? fallback : responder).apply(body);
            if (turn == null) {
                send(response, 400, "application/json", wire.error(400,
                        "ScriptedUpstream: no scripted turn left (enqueue more turns or setDefault)"));
                return true;
            }
            if (turn.delayMillis() > 0) Thread.sleep(turn.delayMillis());
            if (turn.status() >= 400) {
                if (turn.retryAfterSeconds() != null)
                    response.getHeaders().put(HttpHeader.RETRY_AFTER, turn.retryAfterSeconds().toString());
                send(response, turn.status(), "application/json", wire.error(turn.status(), turn.errorMessage()));
                return true;
            }
            var stream = body.path("stream").asBoolean(false);
            var id = "chatcmpl-scripted" + ids.incrementAndGet();
            var model = body.path("model").asText(MODEL);
            long created = System.currentTimeMillis() / 1000;
            if (!stream) {
                var text = turn.malformedBody() ? "<html>this is not JSON" : wire.completion(turn, id, created, model);
                send(response, 200, "application/json", text);
                return true;
            }
            var events = turn.malformedBody() ? List.of("{\"id\": this is not JSON", "[DONE]")
                    : wire.streamEvents(turn, id, created, model,
                            body.path("stream_options").path("include_usage").asBoolean(false));
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
            for (int i = 0; i < events.size(); i++) {
                if (i == turn.cutAfterChunks()) {
                    // Give the client time to read (and act on) the chunks already sent, then FIN, then
                    // the abort: under load a reset that overtook the chunks made "cut after output" look
                    // like "cut before output" (the client discards unread data on a reset).
                    Thread.sleep(300);
                    request.getConnectionMetaData().getConnection().getEndPoint().shutdownOutput();
                    Thread.sleep(200);
                    callback.failed(new EofException("ScriptedUpstream: scripted cut"));
                    return false;
                }
                if (i > 0 && turn.chunkDelayMillis() > 0) Thread.sleep(turn.chunkDelayMillis());
                Content.Sink.write(response, false, ByteBuffer.wrap(("data: " + events.get(i) + "\n\n").getBytes(UTF_8)));
            }
            Content.Sink.write(response, true, ByteBuffer.allocate(0));
            return true;
        }

        private void record(Request request, String path, JsonNode body) {
            var headers = new HashMap<String, String>();
            for (var field : request.getHeaders()) headers.put(field.getLowerCaseName(), field.getValue());
            requests.add(new RecordedRequest(request.getMethod(), path, body, headers));
        }

        private JsonNode parse(String text) {
            if (text.isEmpty()) return MissingNode.getInstance();
            try {
                return json.readTree(text);
            } catch (IOException e) {
                return TextNode.valueOf(text);
            }
        }

        private static void send(Response response, int status, String type, String text) throws IOException {
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
            Content.Sink.write(response, true, ByteBuffer.wrap(text.getBytes(UTF_8)));
        }
    }
}
