package dev.caduceus.plugin.mcp.http;

import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import dev.caduceus.spi.outbound.OutboundHttp.Response;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streamable HTTP (MCP 2025-03-26, 2025-06-18, 2025-11-25): each message is POSTed to the URL with
 * {@code Accept: application/json, text/event-stream}; a notification or response is answered 202; a
 * request is answered with one JSON body or an event stream of messages ending with its response. The
 * {@code Mcp-Session-Id} of the initialize answer goes on every later request, and the negotiated
 * {@code MCP-Protocol-Version} once known. Once initialized, a GET {@link ServerStream} carries what
 * the server sends on its own ({@code notifications/tools/list_changed} on many servers). A 404 to a
 * request carrying the session means the server dropped it: reported to the SDK, which initializes
 * again. Closing DELETEs the session.
 *
 * <p>Threading: {@link #send} from any number of threads at once; session state is volatile.
 */
final class StreamableHttp implements Mode {
    private static final Logger log = LoggerFactory.getLogger(StreamableHttp.class);

    private final HttpTarget target;
    private final Messages messages;
    private final Inbox inbox;
    private final Inflight inflight;
    private final Executor threads;
    private volatile String sessionId;
    private volatile String protocolVersion;
    private volatile boolean spoken; // the server accepted a POST once: no fallback from then on
    private volatile ServerStream stream;

    StreamableHttp(HttpTarget target, Messages messages, Inbox inbox, Inflight inflight, Executor threads) {
        this.target = target;
        this.messages = messages;
        this.inbox = inbox;
        this.inflight = inflight;
        this.threads = threads;
    }

    @Override
    public String kind() {
        return "http";
    }

    @Override
    public void send(JSONRPCMessage message, Runnable accepted) throws Exception {
        boolean initialize = Messages.isInitialize(message);
        if (initialize) newSession();
        var session = sessionId;
        var version = protocolVersion;
        var request = target.request("POST", target.url(), HttpTarget.MESSAGE_IDLE)
                .withHeader("Accept", "application/json, text/event-stream")
                .withHeader("Content-Type", "application/json")
                .withFollowRedirects(false)
                .withBody(messages.write(message));
        if (session != null) request = request.withHeader("Mcp-Session-Id", session);
        if (!initialize && version != null) request = request.withHeader("MCP-Protocol-Version", version);
        var id = Messages.requestId(message);
        var what = "POST " + Messages.describe(message);
        inbox.expect(id);
        var exchange = inflight.open(request, id);
        try {
            Response response;
            try {
                response = exchange.send();
            } catch (Failure f) {
                inbox.forget(id);
                throw target.failed(f, what);
            }
            int status = response.status();
            if (status < 200 || status > 299) {
                inbox.forget(id);
                if (initialize && !spoken && (status == 400 || status == 404 || status == 405))
                    throw new Mode.Fallback("POST initialize answered HTTP " + status);
                if (status == 404 && session != null) throw expired(session);
                throw target.refused(response, what);
            }
            spoken = true;
            if (initialize) sessionId = response.header("Mcp-Session-Id").filter(s -> !s.isBlank()).orElse(null);
            if (Messages.isInitialized(message)) listen();
            accepted.run();
            if (id == null || status == 202) return; // nothing owed on this exchange
            read(response, id, initialize);
        } finally {
            inflight.done(exchange, id);
        }
    }

    /** Reads the answer to request {@code id}: a JSON body or an event stream. */
    private void read(Response response, Object id, boolean initialize) {
        var type = response.header("Content-Type").orElse("").toLowerCase(Locale.ROOT);
        try {
            if (type.contains("text/event-stream")) {
                var events = response.events();
                for (var event = events.next(); event.isPresent(); event = events.next()) {
                    if (!Messages.isMessageEvent(event.get().event()) || event.get().data().isBlank()) continue;
                    take(event.get().data(), initialize);
                }
                inbox.fail(id, "MCP server " + target.describe() + " ended its event stream before answering");
            } else if (type.contains("application/json")) {
                var bytes = response.body().readNBytes(HttpTarget.MAX_MESSAGE_BYTES + 1);
                if (bytes.length > HttpTarget.MAX_MESSAGE_BYTES) {
                    inbox.fail(id, "MCP server " + target.describe() + " answered more than "
                            + (HttpTarget.MAX_MESSAGE_BYTES >> 20) + " MiB");
                    return;
                }
                if (bytes.length > 0) take(new String(bytes, StandardCharsets.UTF_8), initialize);
                inbox.fail(id, "MCP server " + target.describe() + " answered without a JSON-RPC response for this request");
            } else if (!type.isBlank()) {
                inbox.fail(id, "MCP server " + target.describe() + " answered with an unsupported content type: "
                        + target.redact(type));
            }
        } catch (IOException e) {
            if (!inflight.closed())
                inbox.fail(id, "MCP server " + target.describe() + ": reading the answer failed: " + e.getMessage());
        }
    }

    private void take(String data, boolean initialize) {
        try {
            for (var message : messages.read(data)) {
                if (initialize) messages.protocolVersion(message).ifPresent(v -> protocolVersion = v);
                inbox.deliver(message);
            }
        } catch (IOException | IllegalArgumentException e) {
            log.warn("MCP server {} sent a message that is not JSON-RPC; skipped ({})", target.describe(),
                    e.getClass().getSimpleName());
        }
    }

    /** A fresh session: the old one's stream stops, its id and version are forgotten. */
    private void newSession() {
        var old = stream;
        stream = null;
        if (old != null) old.stop();
        sessionId = null;
        protocolVersion = null;
    }

    /** Opens the server stream of the current session. */
    private void listen() {
        var next = new ServerStream(target, messages, inbox, inflight, sessionId, protocolVersion, this::expiredStream);
        var old = stream;
        stream = next;
        if (old != null) old.stop();
        threads.execute(next);
    }

    private void expiredStream(String session) {
        expired(session); // reports it
    }

    private McpTransportSessionNotFoundException expired(String session) {
        if (sessionId != null && sessionId.equals(session)) newSession();
        log.info("MCP server {} no longer knows this client's session (HTTP 404); it will be initialized again",
                target.describe());
        var e = new McpTransportSessionNotFoundException("[of " + target.describe() + "]",
                new McpHttpException(404, "MCP server " + target.describe() + " answered HTTP 404 for this session: it expired"));
        inbox.report(e);
        return e;
    }

    @Override
    public void close() {
        var open = stream;
        stream = null;
        if (open != null) open.stop();
        var session = sessionId;
        sessionId = null;
        if (session == null) return;
        var request = target.request("DELETE", target.url(), HttpTarget.CLOSE_TOTAL)
                .withTimeouts(target.connectTimeout(), HttpTarget.CLOSE_TOTAL, HttpTarget.CLOSE_TOTAL)
                .withHeader("Mcp-Session-Id", session);
        var version = protocolVersion;
        if (version != null) request = request.withHeader("MCP-Protocol-Version", version);
        var exchange = inflight.open(request, null);
        try (var response = exchange.send()) {
            if (response.status() != 405 && (response.status() < 200 || response.status() > 299))
                log.debug("MCP server {} answered DELETE of its session with HTTP {}", target.describe(), response.status());
        } catch (Failure f) {
            log.debug("MCP server {}: DELETE of the session failed: {}", target.describe(), f.getMessage());
        } finally {
            inflight.done(exchange, null);
        }
    }
}
