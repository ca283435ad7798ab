package dev.caduceus.plugin.mcp;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * A transport that can cancel the requests sent through it. The SDK's session numbers requests itself
 * and never sends {@code notifications/cancelled}; so a call is tagged with a token in its
 * {@code _meta} ({@value #TOKEN}), this remembers which JSON-RPC id carried each token, and
 * {@link #cancel} sends {@code notifications/cancelled} for it, as the MCP specification describes.
 *
 * <p>Threading: thread-safe. Lifecycle: wraps one transport for one session.
 */
final class CancellingTransport implements McpClientTransport {
    /** The {@code _meta} key of a request's token. */
    static final String TOKEN = "dev.caduceus/call";
    static final String CANCELLED = "notifications/cancelled";

    private final McpClientTransport delegate;
    private final Map<String, Object> idsByToken = new ConcurrentHashMap<>();

    CancellingTransport(McpClientTransport delegate) {
        this.delegate = delegate;
    }

    McpClientTransport delegate() {
        return delegate;
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return delegate.connect(handler);
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        if (message instanceof McpSchema.JSONRPCRequest request && request.params() instanceof McpSchema.Request params
                && params.meta() != null && params.meta().get(TOKEN) instanceof String token)
            idsByToken.put(token, request.id());
        return delegate.sendMessage(message);
    }

    /** Forgets {@code token} once its call has ended. */
    void done(String token) {
        idsByToken.remove(token);
    }

    /** Sends {@code notifications/cancelled} for the request tagged {@code token}, if it was sent. */
    Mono<Void> cancel(String token, String reason) {
        var id = idsByToken.remove(token);
        if (id == null) return Mono.empty();
        return delegate.sendMessage(new McpSchema.JSONRPCNotification(CANCELLED, Map.of("requestId", id, "reason", reason)));
    }

    @Override
    public Mono<Void> closeGracefully() {
        return delegate.closeGracefully();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return delegate.unmarshalFrom(data, typeRef);
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        delegate.setExceptionHandler(handler);
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }
}
