package dev.caduceus.plugin.mcp.http;

import dev.caduceus.spi.outbound.OutboundHttp.Exchange;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import dev.caduceus.spi.outbound.OutboundHttp.Response;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpTransportException;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The older HTTP+SSE transport (MCP 2024-11-05), for servers that refuse a streamable-HTTP POST: a GET
 * of the URL opens an event stream whose first {@code endpoint} event names where to POST messages
 * (resolved against the URL, and refused unless it has the URL's scheme, host and port); every message
 * the server sends, answers included, arrives on that stream. When the stream ends the session is
 * over: unanswered requests get an error at once and the SDK is told the session is gone, so it
 * initializes again, which opens a new stream.
 *
 * <p>Threading: {@link #send} from any number of threads; one reader thread per stream.
 */
final class LegacySse implements Mode {
    private static final Logger log = LoggerFactory.getLogger(LegacySse.class);
    private static final Duration MIN_ENDPOINT_WAIT = Duration.ofSeconds(1);

    private final HttpTarget target;
    private final Messages messages;
    private final Inbox inbox;
    private final Inflight inflight;
    private final Executor threads;
    private volatile Stream stream;
    private volatile String protocolVersion;
    private volatile Object initializeId;

    LegacySse(HttpTarget target, Messages messages, Inbox inbox, Inflight inflight, Executor threads) {
        this.target = target;
        this.messages = messages;
        this.inbox = inbox;
        this.inflight = inflight;
        this.threads = threads;
    }

    @Override
    public String kind() {
        return "sse";
    }

    @Override
    public void send(JSONRPCMessage message, Runnable accepted) throws Exception {
        boolean initialize = Messages.isInitialize(message);
        var current = stream;
        if (initialize) initializeId = Messages.requestId(message);
        if (initialize && (current == null || current.ended)) {
            protocolVersion = null;
            current = open();
        } else if (current == null || current.ended) {
            throw new McpTransportSessionNotFoundException("[of " + target.describe() + "]",
                    new McpTransportException("MCP server " + target.describe() + " closed its event stream"));
        }
        var request = target.request("POST", current.endpoint, HttpTarget.MESSAGE_IDLE)
                .withHeader("Content-Type", "application/json")
                .withBody(messages.write(message));
        var version = protocolVersion;
        if (!initialize && version != null) request = request.withHeader("MCP-Protocol-Version", version);
        var id = Messages.requestId(message);
        var what = "POST " + Messages.describe(message);
        inbox.expect(id);
        var exchange = inflight.open(request, id);
        try (var response = send(exchange, id, what)) {
            int status = response.status();
            if (status < 200 || status > 299) {
                inbox.forget(id);
                if (status == 404) current.end(); // the server forgot the session
                throw target.refused(response, what);
            }
            accepted.run();
        } finally {
            inflight.done(exchange, id);
        }
    }

    private Response send(Exchange exchange, Object id, String what) {
        try {
            return exchange.send();
        } catch (Failure f) {
            inbox.forget(id);
            throw target.failed(f, what);
        }
    }

    /** GETs the event stream and waits for its endpoint event. */
    private Stream open() throws InterruptedException {
        var old = stream;
        if (old != null) old.stop();
        var request = target.request("GET", target.url(), HttpTarget.MESSAGE_IDLE)
                .withHeader("Accept", "text/event-stream")
                .withHeader("Cache-Control", "no-cache");
        var next = new Stream(inflight.open(request, null));
        stream = next;
        threads.execute(next);
        var wait = target.connectTimeout().compareTo(MIN_ENDPOINT_WAIT) < 0 ? MIN_ENDPOINT_WAIT : target.connectTimeout();
        try {
            next.endpoint = next.ready.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            return next;
        } catch (TimeoutException e) {
            next.stop();
            throw new McpTransportException("MCP server " + target.describe() + " sent no endpoint event on its event stream within "
                    + wait.toMillis() + " ms");
        } catch (ExecutionException e) {
            next.stop();
            throw e.getCause() instanceof RuntimeException r ? r : new McpTransportException(e.getCause().getMessage(), e.getCause());
        }
    }

    @Override
    public void close() {
        var open = stream;
        stream = null;
        if (open != null) open.stop();
    }

    /** One event stream: its endpoint, then every message on it. */
    private final class Stream implements Runnable {
        final CompletableFuture<URI> ready = new CompletableFuture<>();
        final Exchange exchange;
        volatile URI endpoint;
        volatile boolean ended;
        private volatile boolean stopped;

        Stream(Exchange exchange) {
            this.exchange = exchange;
        }

        @Override
        public void run() {
            try (var response = exchange.send()) {
                int status = response.status();
                if (status < 200 || status > 299) {
                    ready.completeExceptionally(target.refused(response, "the HTTP+SSE GET (after the streamable POST was refused)"));
                    return;
                }
                var type = response.header("Content-Type").orElse("").toLowerCase(Locale.ROOT);
                if (!type.contains("text/event-stream")) {
                    ready.completeExceptionally(new McpTransportException("MCP server " + target.describe()
                            + " answered neither a streamable-HTTP POST nor an HTTP+SSE GET (got " + target.redact(type) + ")"));
                    return;
                }
                var events = response.events();
                for (var event = events.next(); event.isPresent(); event = events.next()) {
                    var name = event.get().event();
                    if (name.equals("endpoint")) endpoint(response.uri(), event.get().data().strip());
                    else if (Messages.isMessageEvent(name) && !event.get().data().isBlank()) take(event.get().data());
                }
                ready.completeExceptionally(new McpTransportException("MCP server " + target.describe()
                        + " closed its event stream before naming its endpoint"));
            } catch (Failure f) {
                ready.completeExceptionally(target.failed(f, "the HTTP+SSE GET"));
                if (!stopped && !inflight.closed()) log.debug("MCP server {}: event stream failed: {}", target.describe(), f.getMessage());
            } finally {
                inflight.done(exchange, null);
                if (!stopped) lost();
                ended = true;
            }
        }

        private void endpoint(URI base, String data) {
            URI uri;
            try {
                uri = base.resolve(data);
            } catch (IllegalArgumentException e) {
                ready.completeExceptionally(new McpTransportException("MCP server " + target.describe()
                        + " named a malformed endpoint"));
                return;
            }
            if (!target.sameOrigin(uri)) {
                ready.completeExceptionally(new McpTransportException("MCP server " + target.describe()
                        + " named an endpoint on another origin (" + HttpTarget.describe(uri) + "); refused"));
                stop();
                return;
            }
            ready.complete(uri);
        }

        private void take(String data) {
            try {
                for (var message : messages.read(data)) {
                    if (message instanceof JSONRPCResponse r && String.valueOf(r.id()).equals(String.valueOf(initializeId)))
                        messages.protocolVersion(message).ifPresent(v -> protocolVersion = v);
                    inbox.deliver(message);
                }
            } catch (IOException | IllegalArgumentException e) {
                log.warn("MCP server {} sent a message that is not JSON-RPC; skipped ({})", target.describe(),
                        e.getClass().getSimpleName());
            }
        }

        /** The stream ended on its own: the session is over. */
        private void lost() {
            if (!ready.isDone() || ready.isCompletedExceptionally() || inbox.closed()) return;
            log.info("MCP server {} closed its event stream; the session will be initialized again", target.describe());
            inbox.failAll("MCP server " + target.describe() + " closed its event stream before answering");
            inbox.report(new McpTransportSessionNotFoundException("[of " + target.describe() + "]",
                    new McpTransportException("MCP server " + target.describe() + " closed its event stream")));
        }

        /** Marks the session over (the server said so) without waiting for the stream to end. */
        void end() {
            ended = true;
            exchange.cancel();
        }

        void stop() {
            stopped = true;
            ended = true;
            exchange.cancel();
        }
    }
}
