package dev.caduceus.platform.host.http;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.BindException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.http.MimeTypes;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.VirtualThreadPool;

/**
 * The Jetty server: one HTTP/1.1 connector, every request on a virtual thread, and the request pipeline in front of the {@link Router}:
 *
 * <pre>
 * GracefulHandler        503 gateway_draining once {@link #beginDrain()} was called
 *  DefaultHeadersHandler security headers, X-Request-Id, CORS headers for an allowed origin
 *   RouteHandler         404 / 405 (+ Allow); OPTIONS on a known path goes on as a preflight
 *    OriginGateHandler   403 empty for a disallowed Origin; answers every OPTIONS (200 or 403)
 *     BodyLimitHandler   413 when Content-Length exceeds the limit
 *      AuthHandler       401 unless Bearer key, except public routes
 *       DispatchHandler  the route's HttpHandler via InboundExchange
 * JsonErrorHandler       every error Jetty produces itself, as the contract's JSON
 * ConnectionGuard        (on the connector) header deadline, idle connections per client
 * </pre>
 *
 * <p>Lifecycle: {@link #start} binds and starts; {@link #beginDrain()} makes new requests answer 503
 * while in-flight ones finish; {@link #stop()} stops accepting, waits up to the drain timeout, then
 * closes everything. Thread-safe.
 */
public final class HttpServer implements AutoCloseable {
    /**
     * Caps concurrently running tasks (requests, SSE streams, selectors), not threads (jetty#14330).
     * Every open event stream holds one task for its whole life, and one process must hold at least
     * 10,000 run-event subscribers (issue target), so the cap sits well above that; a virtual thread
     * parked on a stream costs about a kilobyte.
     */
    static final int MAX_CONCURRENT_TASKS = 32_768;

    private final Server server;
    private final ServerConnector connector;
    private final GracefulHandler graceful;
    private final int port;

    private HttpServer(Server server, ServerConnector connector, GracefulHandler graceful) {
        this.server = server;
        this.connector = connector;
        this.graceful = graceful;
        this.port = connector.getLocalPort();
    }

    /**
     * Starts, on a daemon thread, the costliest one-time initialisation of {@link #prepare}: Jetty's
     * {@link MimeTypes} class initialiser asks the JDK for every available locale, which parses ~1,000
     * language tags per kind of locale service (a quarter of the boot thread's samples when it ran
     * there). Started first thing at boot, it runs while the configuration loads and the database
     * opens; a {@link #prepare} that comes before it finished waits for it rather than doing it twice.
     */
    public static void warmUpInBackground() {
        JettyCacheLine.preset();
        Thread.ofPlatform().daemon().name("caduceus-http-warm-up").start(() -> requireNonNull(MimeTypes.DEFAULTS));
    }

    /**
     * Builds the pipeline and starts listening on {@code settings.host():settings.port()}.
     *
     * @param keys       checks the bearer key every non-public route needs
     * @param hostMapper the host's mapper: parses bodies, writes JSON answers and errors
     * @throws PortInUseException when the port is taken
     * @throws IllegalStateException when Jetty fails to start for another reason
     */
    public static HttpServer start(HttpSettings settings, HttpSettings.KeyCheck keys, Router router,
                                   ObjectMapper hostMapper) {
        return prepare(settings, hostMapper).start(keys, router, RequestRecorder.none());
    }

    /**
     * Builds everything but the route table, and neither runs nor listens: the boot does this while the
     * database opens, because building Jetty's server is mostly one-time class initialisation (its
     * MimeTypes alone asks the JDK for every available locale, ~0.1 s on a cold JVM) that needs
     * nothing the plugins contribute. Dropping an unstarted server leaves nothing to clean up.
     *
     * @param hostMapper the host's mapper: parses bodies, writes JSON answers and errors
     */
    public static Unstarted prepare(HttpSettings settings, ObjectMapper hostMapper) {
        requireNonNull(settings, "settings");
        requireNonNull(hostMapper, "hostMapper");
        JettyCacheLine.preset();
        // Jetty's recommended shape: selectors and the acceptor on a few platform threads, every
        // request handler on a virtual thread. With a VirtualThreadPool as the server's only pool the
        // selectors were virtual threads too, and each epoll wait pinned one of the (here two)
        // carriers; handing a request from a pinned selector to a handler cost milliseconds.
        var virtual = new VirtualThreadPool(MAX_CONCURRENT_TASKS);
        virtual.setName("caduceus-http");
        var pool = new QueuedThreadPool();
        pool.setName("caduceus-io");
        pool.setVirtualThreadsExecutor(virtual);
        var server = new Server(pool);

        var config = new HttpConfiguration();
        config.setSendServerVersion(false);
        config.setSendXPoweredBy(false);
        // The parser's per-connection header cache matches case-insensitively by default, so after
        // "Authorization: Bearer k" a later "authorization: bearer k" would come back as the cached
        // "Bearer k" and defeat the case-sensitive "Bearer" prefix.
        config.setHeaderCacheCaseSensitive(true);
        var connector = new ServerConnector(server, new HttpConnectionFactory(config));
        connector.setHost(settings.host());
        connector.setPort(settings.port());
        connector.setIdleTimeout(settings.idleTimeout().toMillis());
        // The idle timeout alone never ends a connection that trickles a byte at a time (slowloris):
        // the guard puts a deadline on request headers and caps each client's idle connections.
        var guard = new ConnectionGuard(settings.headerTimeout(), settings.maxIdleConnectionsPerClient(),
                connector.getScheduler());
        config.addCustomizer(guard);
        connector.addBean(guard);
        server.addConnector(connector);
        server.setStopTimeout(settings.drainTimeout().toMillis());
        return new Unstarted(settings, hostMapper, server, connector);
    }

    /** A server from {@link #prepare}: built, not running, not listening. Use once. */
    public static final class Unstarted {
        private final HttpSettings settings;
        private final ObjectMapper hostMapper;
        private final Server server;
        private final ServerConnector connector;

        private Unstarted(HttpSettings settings, ObjectMapper hostMapper, Server server, ServerConnector connector) {
            this.settings = settings;
            this.hostMapper = hostMapper;
            this.server = server;
            this.connector = connector;
        }

        /**
         * Puts the pipeline in front of {@code router}, behind {@code keys} (the bearer key every non-public
         * route needs), with {@code recorder} told of every completed request (metrics, request log), binds
         * and starts.
         *
         * @throws PortInUseException when the port is taken
         * @throws IllegalStateException when Jetty fails to start for another reason
         */
        public HttpServer start(HttpSettings.KeyCheck keys, Router router, RequestRecorder recorder) {
            requireNonNull(keys, "keys");
            requireNonNull(router, "router");
            requireNonNull(recorder, "recorder");
            var errors = new ErrorBodies(hostMapper);
            var cors = new CorsPolicy(settings.corsOrigins());
            var budget = BodyBudget.ofHeap(settings.bodyMemoryPercent(), Runtime.getRuntime().maxMemory());
            Handler dispatch = new DispatchHandler(hostMapper, errors, settings.maxBodyBytes(), budget, settings.bodyPace(),
                    recorder);
            var auth = new AuthHandler(keys, errors, dispatch);
            var limit = new BodyLimitHandler(settings.maxBodyBytes(), errors, auth);
            var gate = new OriginGateHandler(cors, limit);
            var route = new RouteHandler(router, errors, gate);
            var headers = new DefaultHeadersHandler(cors, route);
            var graceful = new GracefulHandler(headers);
            server.setHandler(graceful);
            server.setErrorHandler(new JsonErrorHandler(errors, cors));
            server.setRequestLog(recorder);

            try {
                server.start();
            } catch (Exception e) {
                stopQuietly(server);
                if (isBindFailure(e)) throw new PortInUseException(settings.port(), e);
                throw new IllegalStateException("HTTP server failed to start: " + e.getMessage(), e);
            }
            return new HttpServer(server, connector, graceful);
        }
    }

    /** The bound port (the real one when the settings asked for 0); still known after {@link #stop()}. */
    public int port() {
        return port;
    }

    /** {@code http://host:port/}, with the loopback name for a wildcard bind. */
    public URI uri() {
        var host = connector.getHost();
        if (host == null || host.equals("0.0.0.0") || host.equals("::")) host = "127.0.0.1";
        if (host.contains(":")) host = "[" + host + "]";
        return URI.create("http://" + host + ":" + port() + "/");
    }

    /**
     * Starts draining: from now on every new request gets 503 {@code gateway_draining}; in-flight
     * requests (event streams included) continue. The future completes when none is left.
     */
    public CompletableFuture<Void> beginDrain() {
        return graceful.shutdown();
    }

    /** Whether {@link #beginDrain()} has been called. */
    public boolean draining() {
        return graceful.isShutdown();
    }

    /**
     * Stops accepting connections, lets in-flight requests finish for up to the drain timeout, then
     * stops Jetty. Idempotent; blocks until stopped.
     */
    public void stop() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("HTTP server failed to stop cleanly: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        stop();
    }

    private static boolean isBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException) return true;
            if (t instanceof IOException && t.getMessage() != null && t.getMessage().startsWith("Failed to bind"))
                return true;
        }
        return false;
    }

    private static void stopQuietly(Server server) {
        try {
            server.stop();
        } catch (Exception ignored) {
            // the start failure is the interesting one
        }
    }
}
