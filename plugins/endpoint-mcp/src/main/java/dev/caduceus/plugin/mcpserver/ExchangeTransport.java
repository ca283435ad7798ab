package dev.caduceus.plugin.mcpserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.HttpStatusException;
import dev.caduceus.support.cancel.OneShotCancellation;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import java.util.Locale;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * The SDK's stateless server transport on the host's {@link HttpHandler} (the SDK's own,
 * {@code HttpServletStatelessServerTransport}, needs a servlet container). It behaves as that one
 * does: a request is answered with its JSON-RPC response as {@code application/json} (200), a
 * notification or a client's response with 202 and no body, and there is no SSE stream and no
 * session. Stricter where the SDK is loose, and in the host's shapes where it writes HTML:
 * <ul>
 *   <li>a body that is not JSON: -32700 with HTTP 400; JSON that is not one MCP message, or has a
 *       field of the wrong type: -32600 with HTTP 400 ({@link JsonRpcMessage});</li>
 *   <li>a body over the host's limit: the host's 413 JSON error ({@code body_too_large});</li>
 *   <li>an {@code Accept} that rules out JSON: 406 (-32600); a missing one is accepted, unlike the
 *       SDK, so that a plain HTTP client can call;</li>
 *   <li>an {@code MCP-Protocol-Version} this server does not speak: 400 (-32600), as the spec asks;</li>
 *   <li>after {@link #closeGracefully}: 503 in the contract's error shape.</li>
 * </ul>
 * Authentication (the bearer key, the key's families) happened in the host before {@link #handle};
 * the {@link Caller} and the request's cancellation travel to the handlers in the
 * {@link McpTransportContext} ({@link #caller}, {@link #cancellation}).
 *
 * <p>Threading: {@link #handle} runs on the request's virtual thread and blocks on the handler's
 * {@link Mono}; tool calls run on that thread. The handler is set once, when the SDK's server is built.
 */
final class ExchangeTransport implements McpStatelessServerTransport, HttpHandler {
    static final String PROTOCOL_VERSION_HEADER = "MCP-Protocol-Version";
    private static final String CALLER = "caduceus.caller";
    private static final String CANCELLATION = "caduceus.cancellation";
    private static final System.Logger LOG = System.getLogger(ExchangeTransport.class.getName());

    private final ObjectMapper mapper;
    private volatile McpStatelessServerHandler handler;
    private volatile boolean closing;

    ExchangeTransport(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public void setMcpHandler(McpStatelessServerHandler handler) {
        this.handler = handler;
    }

    /** Wraps the SDK's handler (set by the SDK's server) with {@code wrap}. */
    void decorate(java.util.function.UnaryOperator<McpStatelessServerHandler> wrap) {
        handler = wrap.apply(handler);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(() -> closing = true);
    }

    @Override
    public void handle(HttpExchange exchange) {
        var mcp = handler;
        if (closing || mcp == null)
            throw new ApiError(503, "The MCP endpoint is shutting down", ApiError.SERVER, null, "unavailable").exception();
        // The body is read before any early answer: a connection whose request body was left unread
        // cannot carry the next request, and the client would not know (no Connection: close).
        JsonNode body;
        boolean unparsable = false;
        try {
            body = exchange.body();
        } catch (HttpStatusException e) {
            if (!"invalid_json".equals(e.error().code())) throw e; // body_too_large: the host's 413
            body = null;
            unparsable = true;
        }
        var accept = exchange.header("Accept");
        if (accept.isPresent() && !acceptsJson(accept.get())) {
            exchange.respond(406, JsonRpcErrors.invalidRequest(null,
                    "Accept must allow application/json: this server answers every request with JSON"));
            return;
        }
        var version = exchange.header(PROTOCOL_VERSION_HEADER).map(String::strip);
        if (version.isPresent() && !protocolVersions().contains(version.get())) {
            exchange.respond(400, JsonRpcErrors.invalidRequest(null, "Unsupported " + PROTOCOL_VERSION_HEADER + ": "
                    + version.get() + " (supported: " + String.join(", ", protocolVersions()) + ")"));
            return;
        }
        if (unparsable) {
            exchange.respond(400, JsonRpcErrors.parseError());
            return;
        }
        var cancellation = new OneShotCancellation();
        var context = McpTransportContext.create(Map.of(CALLER, exchange.caller(), CANCELLATION, cancellation));
        switch (JsonRpcMessage.read(body, mapper)) {
            case JsonRpcMessage.Invalid invalid -> exchange.respond(400, JsonRpcErrors.invalidRequest(invalid.id(), invalid.reason()));
            case JsonRpcMessage.Reply reply -> exchange.respond(202);
            case JsonRpcMessage.Notification n -> {
                try {
                    mcp.handleNotification(context, n.message()).contextWrite(c -> c.put(McpTransportContext.KEY, context)).block();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "MCP notification " + n.message().method() + " failed", e);
                }
                exchange.respond(202);
            }
            case JsonRpcMessage.Request r -> {
                exchange.onClientGone(cancellation::cancel);
                JsonNode answer;
                int status = 200;
                try {
                    var response = mcp.handleRequest(context, r.message())
                            .contextWrite(c -> c.put(McpTransportContext.KEY, context)).block();
                    if (response == null) throw new IllegalStateException("no response to " + r.message().method());
                    answer = mapper.valueToTree(response);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "MCP " + r.message().method() + " failed", e);
                    answer = JsonRpcErrors.error(r.message().id(), JsonRpcErrors.INTERNAL_ERROR, "Internal error");
                    status = 500;
                }
                exchange.respond(status, answer);
            }
        }
    }

    /** The caller {@link #handle} put in {@code context}. */
    static Caller caller(McpTransportContext context) {
        if (context.get(CALLER) instanceof Caller caller) return caller;
        throw new IllegalStateException("no caller in the MCP transport context");
    }

    /** The request's cancellation {@link #handle} put in {@code context}. */
    static OneShotCancellation cancellation(McpTransportContext context) {
        if (context.get(CANCELLATION) instanceof OneShotCancellation cancellation) return cancellation;
        throw new IllegalStateException("no cancellation in the MCP transport context");
    }

    /** Whether an {@code Accept} value admits {@code application/json}. */
    static boolean acceptsJson(String accept) {
        for (var range : accept.split(",")) {
            var type = range.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
            if (type.equals("application/json") || type.equals("application/*") || type.equals("*/*") || type.isEmpty())
                return true;
        }
        return false;
    }
}
