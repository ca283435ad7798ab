package dev.caduceus.plugin.mcp;

import dev.caduceus.spi.Scheduler;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolSource.Status;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * One configured server and its life: connecting (at boot, within {@code connect_timeout}), reported
 * unavailable with its reason and retried with {@link Backoff} on the host's scheduler, its tool list
 * refreshed on {@code notifications/tools/list_changed}, a dead stdio child restarted by the next
 * call, and every call bounded by {@code timeout} and by the run's cancellation (both send
 * {@code notifications/cancelled} and give an error result).
 *
 * <p>Threading: thread-safe. Connecting is serialized by a lock (a call that finds the server down
 * waits for one reconnection); the published {@link ServerState} is a volatile immutable value, and
 * {@code changed} is called after each change. Lifecycle: {@link #connect} once at start, {@link #stop}
 * once at plugin stop; nothing reconnects after that.
 */
final class ServerLink {
    private static final Logger log = LoggerFactory.getLogger(ServerLink.class);

    private final ServerConfig config;
    private final Connection.Transports transports;
    private final ServerTools tools;
    private final Scheduler scheduler;
    private final Backoff backoff;
    private final Runnable changed;
    private final ReentrantLock connecting = new ReentrantLock();
    private volatile ServerState state;
    private volatile Connection current;
    private volatile boolean stopped;
    private int failures;            // guarded by connecting
    private Scheduler.Task retry;    // guarded by this

    ServerLink(ServerConfig config, Connection.Transports transports, ServerTools tools, Scheduler scheduler,
               Backoff backoff, Runnable changed) {
        this.config = config;
        this.transports = transports;
        this.tools = tools;
        this.scheduler = scheduler;
        this.backoff = backoff;
        this.changed = changed;
        String transport = config.stdio() ? "stdio" : "http";
        this.state = config.enabled()
                ? new ServerState(Status.CONNECTING, transport, null, List.of(), false)
                : new ServerState(Status.DISABLED, transport, "enabled: false", List.of(), false);
    }

    ServerConfig config() {
        return config;
    }

    ServerState state() {
        return state;
    }

    /**
     * Connects if the server is enabled and not connected; a failure is published (and retried
     * later), never thrown. Returns within about {@code connect_timeout}.
     */
    void connect() {
        if (!config.enabled() || stopped) return;
        try {
            connection(Instant.now().plus(config.connectTimeout()));
        } catch (Exception e) {
            // published by connection()
        }
    }

    /** The live connection, opened now (before {@code deadline}) when there is none or it died. */
    private Connection connection(Instant deadline) throws Exception {
        var live = current;
        if (live != null && live.alive()) return live;
        if (!connecting.tryLock(Math.max(1, Duration.between(Instant.now(), deadline).toMillis()), TimeUnit.MILLISECONDS))
            throw new TimeoutException("still connecting to MCP server '" + config.name() + "'");
        try {
            live = current;
            if (live != null && live.alive()) return live;
            if (stopped) throw new IllegalStateException("the plugin is stopping");
            if (live != null) {
                current = null;
                live.close();
            }
            var old = state;
            // A retry after a failure stays UNAVAILABLE with its reason until it succeeds: operators and
            // the health check see why, not a status that flips to "connecting" for each attempt.
            if (old.status() != Status.UNAVAILABLE)
                publish(new ServerState(Status.CONNECTING, old.transport(), null, old.tools(), old.connected()));
            var holder = new AtomicReference<Connection>();
            var opened = Connection.open(config, transports, tools.mcpJson(), deadline, list -> toolsChanged(holder.get(), list));
            holder.set(opened);
            List<McpSchema.Tool> listed;
            try {
                listed = opened.capabilities().tools() == null ? List.of()
                        : Connection.await(opened.client().listTools(), deadline).tools();
            } catch (Exception | Error e) {
                opened.close();
                throw e;
            }
            if (stopped) {
                opened.close();
                throw new IllegalStateException("the plugin is stopping");
            }
            current = opened;
            failures = 0;
            cancelRetry();
            opened.process().ifPresent(p -> p.onExit().thenAccept(exited -> died(opened, exited)));
            var offered = tools.build(this, opened.capabilities(), listed);
            publish(new ServerState(Status.CONNECTED, opened.kind(), null, offered, true));
            log.info("MCP server '{}' connected ({}): {} tools", config.name(), opened.kind(), offered.size());
            return opened;
        } catch (Exception | Error e) {
            if (stopped) throw e;
            failures++;
            String reason = Reasons.of(e, config);
            var old = state;
            publish(new ServerState(Status.UNAVAILABLE, old.transport(), reason, old.tools(), old.connected()));
            var delay = backoff.after(failures);
            log.warn("MCP server '{}' is unavailable: {}; retrying in {} s", config.name(), reason, delay.toSeconds());
            scheduleRetry(delay);
            throw e;
        } finally {
            connecting.unlock();
        }
    }

    private void toolsChanged(Connection from, List<McpSchema.Tool> listed) {
        if (from == null || from != current || stopped) return;
        var offered = tools.build(this, from.capabilities(), listed);
        publish(new ServerState(Status.CONNECTED, from.kind(), null, offered, true));
        log.info("MCP server '{}' changed its tools: {} tools", config.name(), offered.size());
    }

    private void died(Connection connection, Process process) {
        if (connection != current || stopped) return;
        current = null;
        String reason = "the process exited with code " + process.exitValue() + "; it is restarted by the next call";
        var old = state;
        publish(new ServerState(Status.UNAVAILABLE, old.transport(), reason, old.tools(), old.connected()));
        log.warn("MCP server '{}': {}", config.name(), reason);
        Thread.ofVirtual().name("mcp-close-" + config.name()).start(connection::close); // fails the calls in flight
        scheduleRetry(backoff.after(1));
    }

    private synchronized void publish(ServerState next) {
        state = next;
        changed.run();
    }

    private synchronized void scheduleRetry(Duration delay) {
        if (stopped) return;
        if (retry != null) retry.cancel();
        retry = scheduler.schedule("mcp-" + config.name() + "-reconnect", delay, this::connect);
    }

    private synchronized void cancelRetry() {
        if (retry != null) retry.cancel();
        retry = null;
    }

    /**
     * Sends one request to the server for a call of the agent and waits for its answer within
     * {@code timeout}, reconnecting first when the server is down.
     *
     * @param what     what is asked, for messages ({@code tool 'echo'})
     * @param token    the request's {@link CancellingTransport#TOKEN}, or null when it carries none
     * @param request  the request on a live connection
     * @param answer   the result as the model sees it
     */
    <T> ToolResult call(String what, String token, Function<Connection, Mono<T>> request, ToolContext ctx,
                        Function<T, ToolResult> answer) throws InterruptedException {
        Connection connection;
        try {
            connection = connection(Instant.now().plus(config.connectTimeout()));
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            return new ToolResult.Error("MCP server '" + config.name() + "' is unavailable: " + Reasons.of(e, config), true);
        }
        var future = request.apply(connection).toFuture();
        AutoCloseable onStop = ctx.cancellation().onCancel(() -> {
            if (token != null) connection.transport().cancel(token, "the run was stopped").subscribe(v -> {}, e -> {});
            future.cancel(true);
        });
        try {
            return answer.apply(future.get(config.timeout().toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            if (token != null) connection.transport().cancel(token, "timed out").subscribe(v -> {}, err -> {});
            future.cancel(true);
            return new ToolResult.Error("MCP server '" + config.name() + "' did not answer " + what + " within "
                    + Reasons.seconds(config.timeout()) + "; the request was cancelled", true);
        } catch (CancellationException e) {
            return new ToolResult.Error("MCP " + what + " was cancelled: the run was stopped", false);
        } catch (InterruptedException e) {
            // A stop may interrupt this thread before the cancellation callback runs; whichever comes first
            // tells the server (cancel() forgets the token, so it is said once) before finally forgets it.
            if (token != null) connection.transport().cancel(token, "the run was stopped").subscribe(v -> {}, err -> {});
            future.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            var cause = e.getCause();
            if (cause instanceof McpError error) {
                var rpc = error.getJsonRpcError();
                return new ToolResult.Error("MCP server '" + config.name() + "' returned an error for " + what + ": "
                        + (rpc != null ? rpc.message() + " (code " + rpc.code() + ")" : String.valueOf(error.getMessage())), false);
            }
            if (!connection.alive() || connection != current)
                return new ToolResult.Error("MCP server '" + config.name() + "' stopped during " + what
                        + "; it is restarted by the next call", true);
            return new ToolResult.Error("MCP " + what + " of server '" + config.name() + "' failed: "
                    + Reasons.of(cause, config), true);
        } finally {
            try {
                onStop.close();
            } catch (Exception ignored) {
                // unregistering a callback does not fail
            }
            if (token != null) connection.transport().done(token);
        }
    }

    /** Closes the session and kills the child; nothing reconnects afterwards. */
    void stop() {
        stopped = true;
        cancelRetry();
        var live = current;
        current = null;
        if (live != null) live.close();
    }
}
