package dev.caduceus.plugin.openai;

import java.io.IOException;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/**
 * A small blocking HTTP/1.1 client for virtual threads, with a keep-alive connection pool.
 *
 * <p>Why the plugin has its own: profiling the chat benchmark showed the JDK's
 * {@code java.net.http.HttpClient} at ~25–30 % of the server's CPU per chat turn (its SelectorManager
 * thread, CompletableFuture chains, per-request reflection in its FilterFactory), and every call
 * hopped threads several times (caller → selector thread → executor → body reader), which on two busy
 * cores added ~1–3 ms to the time to the first token. On a virtual thread a blocking socket is the
 * natural fit: the calling thread writes the request and reads the response itself, no hand-offs.
 *
 * <p>What it deliberately does not do, none of which the provider used with the JDK client (that was
 * built with HTTP/1.1, no proxy selector, no redirect following): no HTTP/2, no proxies, no redirects,
 * no cookies, no authentication schemes, no compression (it sends no {@code Accept-Encoding}, so
 * servers answer in identity coding), no request bodies larger than memory, no {@code Expect:
 * 100-continue}.
 *
 * <p>Threading: thread-safe; each exchange runs on its caller's thread. Lifecycle: {@link #close()}
 * closes the idle connections; connections in use are closed when their exchanges end.
 */
final class Http1Client implements AutoCloseable {
    static final Duration DEFAULT_MAX_IDLE = Duration.ofSeconds(30);
    static final int DEFAULT_MAX_IDLE_PER_ORIGIN = 64;

    private final ConnectionPool pool;
    private final SocketOpener opener;

    /** With the JDK's default TLS context. */
    Http1Client(Duration connectTimeout) {
        this(connectTimeout, null, DEFAULT_MAX_IDLE, DEFAULT_MAX_IDLE_PER_ORIGIN);
    }

    /**
     * @param tls              the TLS context for https, {@code null} for {@code SSLContext.getDefault()}
     * @param maxIdle          how long an idle connection may be reused
     * @param maxIdlePerOrigin how many idle connections are kept per origin
     */
    Http1Client(Duration connectTimeout, SSLContext tls, Duration maxIdle, int maxIdlePerOrigin) {
        this.pool = new ConnectionPool(maxIdle, maxIdlePerOrigin);
        this.opener = new SocketOpener(connectTimeout, tls);
    }

    /** An exchange not yet sent, so that an abort hook can be attached before it blocks. */
    Http1Exchange exchange(Http1Request request) {
        return new Http1Exchange(request, pool, opener);
    }

    /** Sends a request that nobody needs to abort; close the response body when done. */
    Http1Response send(Http1Request request) throws IOException {
        return exchange(request).send();
    }

    /** Idle connections kept for {@code origin}. */
    int idleConnections(Origin origin) {
        return pool.idleCount(origin);
    }

    @Override
    public void close() {
        pool.close();
    }
}
