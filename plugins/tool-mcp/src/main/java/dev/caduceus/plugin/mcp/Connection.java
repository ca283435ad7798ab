package dev.caduceus.plugin.mcp;

import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * One initialized session with one MCP server: its client, its transport (wrapped so calls can be
 * cancelled) and, for a stdio server, its child process. Opened within a deadline; closed once, which
 * also kills the child and everything it started.
 *
 * <p>Threading: thread-safe (the SDK client is). Lifecycle: {@link #open} to {@link #close}; a
 * connection that failed is never reused (a new one is opened).
 */
final class Connection implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Connection.class);
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(2);
    /** The structured-output check is left to the model: no schema validator is bundled. */
    private static final JsonSchemaValidator NO_VALIDATION = (schema, content) ->
            JsonSchemaValidator.ValidationResponse.asValid(null);

    private final McpAsyncClient client;
    private final CancellingTransport transport;
    private final IsolatedStdioTransport stdio;
    private final java.util.function.Supplier<String> kind; // asked late: an HTTP server may have fallen back to SSE
    private volatile McpSchema.InitializeResult initialized;

    private Connection(McpAsyncClient client, CancellingTransport transport, IsolatedStdioTransport stdio,
                       java.util.function.Supplier<String> kind) {
        this.client = client;
        this.transport = transport;
        this.stdio = stdio;
        this.kind = kind;
    }

    /** How a transport is made for a server. */
    interface Transports {
        /** The stdio transport of a {@code command} server (not started yet). */
        IsolatedStdioTransport stdio(ServerConfig server, McpJsonMapper json);

        /** The HTTP transport of a {@code url} server. */
        McpClientTransport http(ServerConfig server, McpJsonMapper json);

        /** {@code http} or {@code sse} for an HTTP transport. */
        String kind(McpClientTransport transport);
    }

    /**
     * Starts the transport and initializes the session before {@code deadline}; on failure everything
     * started is closed again.
     *
     * @param onToolsChanged called with the new tool list after {@code notifications/tools/list_changed}
     */
    static Connection open(ServerConfig server, Transports transports, McpJsonMapper json, Instant deadline,
                           Consumer<List<McpSchema.Tool>> onToolsChanged) throws Exception {
        McpClientTransport raw;
        IsolatedStdioTransport stdio = null;
        if (server.stdio()) {
            stdio = transports.stdio(server, json);
            raw = stdio;
        } else {
            raw = transports.http(server, json);
        }
        var transport = new CancellingTransport(raw);
        var client = McpClient.async(transport)
                // the SDK's own bound on every request; each call is bounded by its timeout below first
                .requestTimeout(server.timeout().plus(server.connectTimeout()))
                .initializationTimeout(server.connectTimeout())
                .clientInfo(new McpSchema.Implementation("caduceus", "1"))
                .capabilities(McpSchema.ClientCapabilities.builder().build())
                .jsonSchemaValidator(NO_VALIDATION)
                .enableCallToolSchemaCaching(false)
                .toolsChangeConsumer(tools -> Mono.fromRunnable(() -> onToolsChanged.accept(tools)))
                .build();
        var connection = new Connection(client, transport, stdio, server.stdio() ? () -> "stdio" : () -> transports.kind(raw));
        try {
            var initialize = client.initialize();
            connection.initialized = await(stdio == null ? initialize : Mono.firstWithSignal(initialize, stdio.failure()),
                    deadline);
            return connection;
        } catch (Exception | Error e) {
            connection.close();
            throw e;
        }
    }

    /** Waits for {@code mono} until {@code deadline}; a timeout is a {@link TimeoutException}. */
    static <T> T await(Mono<T> mono, Instant deadline) throws Exception {
        var future = mono.toFuture();
        long millis = Math.max(1, Duration.between(Instant.now(), deadline).toMillis());
        try {
            return future.get(millis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) throw cause;
            throw e;
        } finally {
            future.cancel(true);
        }
    }

    McpAsyncClient client() {
        return client;
    }

    CancellingTransport transport() {
        return transport;
    }

    /** {@code stdio}, {@code http} or {@code sse}. */
    String kind() {
        return kind.get();
    }

    McpSchema.ServerCapabilities capabilities() {
        var init = initialized;
        return init == null || init.capabilities() == null ? McpSchema.ServerCapabilities.builder().build()
                : init.capabilities();
    }

    /** The stdio child, when this is a stdio connection that has started it. */
    Optional<Process> process() {
        return stdio == null ? Optional.empty() : stdio.process();
    }

    /** Whether the session can still be used: for stdio, whether the child is alive. */
    boolean alive() {
        return stdio == null || stdio.process().map(Process::isAlive).orElse(false);
    }

    /**
     * Ends the session: a graceful close for a short while, then the child and its descendants are
     * killed. Idempotent; never throws.
     */
    @Override
    public void close() {
        var child = process();
        var descendants = child.map(p -> p.descendants().toList()).orElse(List.of());
        try {
            client.closeGracefully().toFuture().get(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.debug("MCP session did not close gracefully", e);
            try {
                client.close();
            } catch (RuntimeException ignored) {
                // the transport is going anyway
            }
        }
        child.ifPresent(p -> kill(p.toHandle(), descendants));
    }

    private static void kill(ProcessHandle process, List<ProcessHandle> known) {
        var all = new java.util.ArrayList<>(known);
        process.descendants().forEach(all::add);
        all.add(process);
        for (var handle : all) handle.destroy();
        for (var handle : all) {
            try {
                handle.onExit().get(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                handle.destroyForcibly();
            } catch (ExecutionException | TimeoutException e) {
                handle.destroyForcibly();
            }
        }
    }
}
