package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import dev.caduceus.platform.host.Poll;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The small upstreams the outbound client's tests talk to, all on loopback: {@link Upstream}, a Jetty
 * server with one connector (HTTP/1.1, HTTP/1.1 over TLS, HTTP/2 over TLS only, or h2c only) that
 * records what it was asked; and {@link Raw}, a bare {@link ServerSocket} for the misbehaviour a
 * real server would not produce (a reset after reading the request, a close of a kept-alive
 * connection). Plus {@link #await}, the poll-with-a-deadline the tests use instead of sleeping.
 */
final class TestServers {
    private TestServers() {}

    /** How a handler answers; return true once it has taken charge of the callback (Jetty's protocol). */
    @FunctionalInterface
    interface Route {
        boolean handle(Request request, Response response, Callback callback) throws Exception;
    }

    /** Answers 200 with the method, a space and the request's body, as text. */
    static final Route ECHO = (request, response, callback) -> {
        response.getHeaders().put("Content-Type", "text/plain");
        var body = Content.Source.asString(request, UTF_8);
        Content.Sink.write(response, true, request.getMethod() + " " + body, callback);
        return true;
    };

    /** Two {@link #ECHO} upstreams: plain HTTP/1.1, and HTTP/1.1 over TLS with a certificate of {@code ca}'s. */
    record EchoPair(Upstream plain, Upstream secure) implements AutoCloseable {
        static EchoPair start(TestCa ca) throws Exception {
            var plain = Upstream.http(ECHO);
            try {
                return new EchoPair(plain, Upstream.start("127.0.0.1", 0, Kind.HTTP1_TLS, ca.serverTls(false), ECHO));
            } catch (Exception e) {
                plain.close();
                throw e;
            }
        }

        @Override
        public void close() throws Exception {
            plain.close();
            secure.close();
        }
    }

    /** One request an {@link Upstream} received. */
    record Seen(String method, String path, HttpFields headers, SocketAddress remote, String protocol) {
        String header(String name) {
            return headers.get(name);
        }

        InetAddress remoteAddress() {
            return ((InetSocketAddress) remote).getAddress();
        }
    }

    /** Which connector an {@link Upstream} has. */
    enum Kind {
        HTTP1, HTTP1_TLS, H2_TLS_ONLY, H2C_ONLY
    }

    /**
     * A Jetty server on {@code host} with one connector of a {@link Kind}, recording every request it
     * receives. Handlers that stall wait on {@link #release()}, which {@link #close()} opens.
     * Thread-safe; close it after the test.
     */
    static final class Upstream implements AutoCloseable {
        private final Server server = new Server();
        private final ServerConnector connector;
        private final String scheme;
        private final ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();
        private final CountDownLatch release = new CountDownLatch(1);

        private Upstream(String host, int port, Kind kind, SslContextFactory.Server tls, Route route) throws Exception {
            var config = new HttpConfiguration();
            ConnectionFactory[] factories = switch (kind) {
                case HTTP1 -> new ConnectionFactory[] {new HttpConnectionFactory(config)};
                case H2C_ONLY -> new ConnectionFactory[] {new HTTP2CServerConnectionFactory(config)};
                case HTTP1_TLS -> {
                    config.addCustomizer(secure());
                    yield new ConnectionFactory[] {new SslConnectionFactory(tls, "http/1.1"),
                            new HttpConnectionFactory(config)};
                }
                case H2_TLS_ONLY -> {
                    config.addCustomizer(secure());
                    var alpn = new ALPNServerConnectionFactory("h2");
                    alpn.setDefaultProtocol("h2");
                    yield new ConnectionFactory[] {new SslConnectionFactory(tls, alpn.getProtocol()),
                            alpn, new HTTP2ServerConnectionFactory(config)};
                }
            };
            scheme = kind == Kind.HTTP1_TLS || kind == Kind.H2_TLS_ONLY ? "https" : "http";
            connector = new ServerConnector(server, 1, 1, factories);
            connector.setHost(host);
            connector.setPort(port);
            server.addConnector(connector);
            server.setHandler(new Handler.Abstract() {
                @Override
                public boolean handle(Request request, Response response, Callback callback) throws Exception {
                    seen.add(new Seen(request.getMethod(), Request.getPathInContext(request),
                            HttpFields.build(request.getHeaders()).asImmutable(),
                            request.getConnectionMetaData().getRemoteSocketAddress(),
                            request.getConnectionMetaData().getProtocol()));
                    return route.handle(request, response, callback);
                }
            });
            try {
                server.start();
            } catch (Exception e) {
                server.stop(); // a port already taken: release what did start
                throw e;
            }
        }

        private static SecureRequestCustomizer secure() {
            var secure = new SecureRequestCustomizer();
            secure.setSniHostCheck(false);
            return secure;
        }

        /** An HTTP/1.1 server on 127.0.0.1. */
        static Upstream http(Route route) throws Exception {
            return new Upstream("127.0.0.1", 0, Kind.HTTP1, null, route);
        }

        /** A server of {@code kind} on {@code host}:{@code port} (0 for any free port); {@code tls} for the TLS kinds. */
        static Upstream start(String host, int port, Kind kind, SslContextFactory.Server tls, Route route)
                throws Exception {
            return new Upstream(host, port, kind, tls, route);
        }

        int port() {
            return connector.getLocalPort();
        }

        /** {@code path} on this server, addressed as {@code host} (a name the test's lookup maps, or a literal). */
        URI uri(String host, String path) {
            return URI.create(scheme + "://" + host + ":" + port() + path);
        }

        /** {@code path} on this server at its bound address. */
        URI uri(String path) {
            return uri(connector.getHost(), path);
        }

        /** Every request received, in order. */
        List<Seen> seen() {
            return List.copyOf(seen);
        }

        /** How many requests arrived. */
        int requests() {
            return seen.size();
        }

        /** How many distinct connections (client address and port) carried requests. */
        long connections() {
            return seen.stream().map(Seen::remote).distinct().count();
        }

        /** Blocks a handler until the test ends (or {@code limit} passes, so a broken test cannot hang the server). */
        void stall(Duration limit) throws InterruptedException {
            release.await(limit.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** Writes {@code text} (committing the headers first) and waits until it is on the wire. */
        static void flush(Response response, String text) throws Exception {
            var written = new java.util.concurrent.CompletableFuture<Void>();
            response.write(false, java.nio.ByteBuffer.wrap(text.getBytes(ISO_8859_1)),
                    Callback.from(() -> written.complete(null), written::completeExceptionally));
            written.get(30, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws Exception {
            release.countDown();
            server.stop();
        }
    }

    /**
     * A bare TCP server on 127.0.0.1: each accepted connection runs {@code script} on its own thread.
     * It counts connections and the requests {@link #readRequest} read, so a test can say "exactly one
     * request reached the upstream". Thread-safe; close it after the test.
     */
    static final class Raw implements AutoCloseable {
        /** What the server does with one connection. */
        @FunctionalInterface
        interface Script {
            void serve(Socket socket, int connection, Raw server) throws Exception;
        }

        private final ServerSocket socket;
        private final AtomicInteger connections = new AtomicInteger();
        private final AtomicInteger requests = new AtomicInteger();
        private final Set<Socket> open = ConcurrentHashMap.newKeySet();
        private final List<Throwable> errors = new CopyOnWriteArrayList<>();
        private final Thread acceptor;

        Raw(Script script) throws IOException {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            acceptor = Thread.ofPlatform().daemon().name("raw-upstream").start(() -> {
                while (!socket.isClosed()) {
                    Socket s;
                    try {
                        s = socket.accept();
                    } catch (IOException e) {
                        return; // closed
                    }
                    open.add(s);
                    int n = connections.incrementAndGet();
                    Thread.ofPlatform().daemon().name("raw-upstream-" + n).start(() -> {
                        try {
                            script.serve(s, n, this);
                        } catch (Exception e) {
                            if (!socket.isClosed()) errors.add(e);
                        } finally {
                            open.remove(s);
                            try {
                                s.close();
                            } catch (IOException ignored) {
                                // already reset
                            }
                        }
                    });
                }
            });
        }

        URI uri(String path) {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort() + path);
        }

        int connections() {
            return connections.get();
        }

        int requests() {
            return requests.get();
        }

        /** Failures of the scripts (a test asserts there were none). */
        List<Throwable> errors() {
            return List.copyOf(errors);
        }

        /**
         * Reads one whole request (head, then a {@code Content-Length} body) and counts it; returns its
         * head, or null if the client closed the connection before sending one.
         */
        String readRequest(InputStream in) throws IOException {
            var head = new ByteArrayOutputStream();
            int state = 0; // how much of CRLF CRLF has been seen
            while (state < 4) {
                int b = in.read();
                if (b < 0) {
                    if (head.size() == 0) return null;
                    throw new IOException("the request ended inside its head");
                }
                head.write(b);
                state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1
                        : b == '\r' ? 1 : 0;
            }
            var text = head.toString(ISO_8859_1);
            long length = 0;
            for (var line : text.split("\r\n")) {
                if (line.toLowerCase(Locale.ROOT).startsWith("content-length:"))
                    length = Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                if (line.toLowerCase(Locale.ROOT).startsWith("transfer-encoding:"))
                    throw new IOException("the raw upstream reads Content-Length bodies only");
            }
            if (in.readNBytes((int) length).length != length) throw new IOException("the request body ended early");
            requests.incrementAndGet();
            return text;
        }

        /** Writes a complete keep-alive response with a text body. */
        static void respond(Socket socket, String body) throws IOException {
            var bytes = body.getBytes(ISO_8859_1);
            socket.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + bytes.length
                    + "\r\n\r\n").getBytes(ISO_8859_1));
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        }

        /** Resets the connection (RST rather than FIN): linger zero, then close. */
        static void reset(Socket socket) throws IOException {
            socket.setSoLinger(true, 0);
            socket.close();
        }

        @Override
        public void close() throws IOException {
            socket.close();
            for (var s : open) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing is all that is left
                }
            }
            try {
                acceptor.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Polls {@code condition} until it holds or {@code limit} passes; fails with {@code what} then. */
    static void await(String what, Duration limit, BooleanSupplier condition) {
        Poll.until(limit, what, condition);
    }

    /** A free TCP port on 127.0.0.1 at this moment (for servers that cannot bind port 0 themselves). */
    static int freePort() {
        try (var probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
