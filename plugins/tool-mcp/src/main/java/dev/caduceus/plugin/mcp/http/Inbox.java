package dev.caduceus.plugin.mcp.http;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Where the messages a server sends go: the handler the SDK registered with {@code connect}, on the
 * reading thread, in stream order. It also remembers the requests sent and not yet answered, so that
 * a stream that ends without the answer turns into a JSON-RPC error response at once (the caller reads
 * "the server closed the stream before answering" instead of waiting for its timeout). After
 * {@link #close()} nothing is delivered: the SDK dismisses its own pending requests when it closes.
 * Thread-safe.
 */
final class Inbox {
    private static final Logger log = LoggerFactory.getLogger(Inbox.class);

    private final AtomicReference<Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>>> handler = new AtomicReference<>();
    private final AtomicReference<Consumer<Throwable>> exceptions = new AtomicReference<>();
    private final Map<String, Object> pending = new ConcurrentHashMap<>();
    private volatile boolean closed;

    void handler(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> value) {
        handler.set(value);
    }

    void exceptionHandler(Consumer<Throwable> value) {
        exceptions.set(value);
    }

    /** A request with this id is about to be sent. */
    void expect(Object id) {
        if (id != null) pending.put(key(id), id);
    }

    /** The request with this id failed on its own Mono: no answer is owed for it any more. */
    void forget(Object id) {
        if (id != null) pending.remove(key(id));
    }

    boolean awaiting(Object id) {
        return id != null && pending.containsKey(key(id));
    }

    /** Hands {@code message} to the SDK. */
    void deliver(JSONRPCMessage message) {
        if (closed) return;
        if (message instanceof JSONRPCResponse response && response.id() != null) pending.remove(key(response.id()));
        var h = handler.get();
        if (h == null) {
            log.warn("An MCP message arrived before the client connected; dropped");
            return;
        }
        h.apply(Mono.just(message)).subscribe(ignored -> { },
                e -> log.warn("The MCP client failed handling a message: {}", e.toString()));
    }

    /** If the request {@code id} is still unanswered, answers it with a JSON-RPC error saying {@code reason}. */
    void fail(Object id, String reason) {
        if (id == null || closed || pending.remove(key(id)) == null) return;
        deliver(JSONRPCResponse.error(id, new JSONRPCResponse.JSONRPCError(McpSchema.ErrorCodes.INTERNAL_ERROR, reason)));
    }

    /** Answers every unanswered request with an error saying {@code reason}. */
    void failAll(String reason) {
        for (var id : pending.values().toArray()) fail(id, reason);
    }

    /** Tells the SDK about a transport-level fault (a lost session makes it initialize again). */
    void report(Throwable fault) {
        if (closed) return;
        var h = exceptions.get();
        if (h == null) return;
        try {
            h.accept(fault);
        } catch (RuntimeException e) {
            log.warn("The MCP client's exception handler failed: {}", e.toString());
        }
    }

    boolean closed() {
        return closed;
    }

    void close() {
        closed = true;
        pending.clear();
    }

    private static String key(Object id) {
        return id instanceof String ? "s:" + id : "n:" + id;
    }
}
