package dev.caduceus.plugin.mcp.http;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpTransportException;
import io.modelcontextprotocol.spec.McpTransportSessionClosedException;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * The SDK's {@link McpClientTransport} over HTTP on the host's outbound client: streamable HTTP first,
 * and the older HTTP+SSE transport when the server answers the first {@code initialize} POST with 400,
 * 404 or 405 (then {@link #kind()} says {@code "sse"}). Made by {@link HttpTransports#open}.
 *
 * <p>Threading: every blocking exchange runs on a virtual thread of this transport's own, never on the
 * subscriber's; {@link #sendMessage} completes once the server accepted the message (for a request,
 * when the answer's headers arrived), and the answer is handed to the SDK's handler from that thread.
 * Errors come back on the Mono: the HTTP status and a short, redacted body excerpt, or the wire failure.
 * Lifecycle: {@link #connect} may be called again (the SDK does when it initializes a new session);
 * {@link #closeGracefully()} DELETEs a streamable session, cancels every exchange still open, the
 * event streams included, and refuses later messages.
 */
final class McpHttpTransport implements McpClientTransport {
    private static final Logger log = LoggerFactory.getLogger(McpHttpTransport.class);
    private static final List<String> VERSIONS = List.of(ProtocolVersions.MCP_2024_11_05, ProtocolVersions.MCP_2025_03_26,
            ProtocolVersions.MCP_2025_06_18, ProtocolVersions.MCP_2025_11_25);

    private final HttpTarget target;
    private final Messages messages;
    private final Inbox inbox = new Inbox();
    private final Inflight inflight;
    private final ExecutorService threads;
    private final LegacySse legacy;
    private volatile Mode mode;
    private final AtomicBoolean closed = new AtomicBoolean();

    McpHttpTransport(HttpTarget target, Messages messages) {
        this.target = target;
        this.messages = messages;
        this.inflight = new Inflight(target.http());
        this.threads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual()
                .name("mcp-http-" + target.url().getHost() + ":" + target.url().getPort() + "-", 0).factory());
        this.mode = new StreamableHttp(target, messages, inbox, inflight, threads);
        this.legacy = new LegacySse(target, messages, inbox, inflight, threads);
    }

    /** {@code "http"} (streamable HTTP, also before anything was sent) or {@code "sse"} (the fallback). */
    String kind() {
        return mode.kind();
    }

    @Override
    public List<String> protocolVersions() {
        return VERSIONS; // the latest last: the SDK offers it in initialize
    }

    @Override
    public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
        return Mono.fromRunnable(() -> inbox.handler(handler));
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        inbox.exceptionHandler(handler);
    }

    @Override
    public Mono<Void> sendMessage(JSONRPCMessage message) {
        return Mono.create(sink -> {
            if (closed.get()) {
                sink.error(new McpTransportSessionClosedException());
                return;
            }
            try {
                threads.execute(() -> send(message, sink));
            } catch (RuntimeException e) { // closed meanwhile
                sink.error(new McpTransportSessionClosedException());
            }
        });
    }

    private void send(JSONRPCMessage message, MonoSink<Void> sink) {
        var done = new AtomicBoolean();
        Runnable accepted = () -> {
            if (done.compareAndSet(false, true)) sink.success();
        };
        try {
            var cancelled = messages.cancelledRequest(message);
            cancelled.ifPresent(inbox::forget); // its answer, if it still comes, is no longer owed
            try {
                mode.send(message, accepted);
            } catch (Mode.Fallback why) {
                log.info("MCP server {} refused streamable HTTP ({}); trying the older HTTP+SSE transport",
                        target.describe(), why.getMessage());
                mode = legacy;
                try {
                    legacy.send(message, accepted);
                } catch (McpHttpException e) {
                    throw new McpHttpException(e.status(), e.getMessage() + " (tried after its streamable-HTTP "
                            + why.getMessage() + ")");
                } catch (McpTransportException e) {
                    throw new McpTransportException(e.getMessage() + " (tried after its streamable-HTTP " + why.getMessage()
                            + ")", e.getCause() == null ? e : e.getCause());
                }
            }
            accepted.run();
            cancelled.ifPresent(inflight::cancel);
        } catch (Throwable e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            var error = closed.get() ? new McpTransportSessionClosedException() : e;
            if (done.compareAndSet(false, true)) sink.error(error);
            else log.debug("MCP server {}: {} failed after it was accepted: {}", target.describe(),
                    Messages.describe(message), e.toString());
        }
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.create(sink -> {
            if (!closed.compareAndSet(false, true)) {
                sink.success();
                return;
            }
            Thread.ofVirtual().name("mcp-http-close").start(() -> {
                try {
                    inbox.close();
                    mode.close();
                } catch (RuntimeException e) {
                    log.debug("MCP server {}: closing failed: {}", target.describe(), e.toString());
                } finally {
                    inflight.cancelAll();
                    threads.shutdownNow();
                    sink.success();
                }
            });
        });
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return messages.json().convertValue(data, typeRef);
    }
}
