package dev.caduceus.platform.host.outbound;

import dev.caduceus.spi.outbound.OutboundHttp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.RedirectProtocolHandler;
import org.eclipse.jetty.client.WWWAuthenticationProtocolHandler;
import org.eclipse.jetty.client.transport.HttpClientConnectionFactory;
import org.eclipse.jetty.client.transport.HttpClientTransportDynamic;
import org.eclipse.jetty.client.transport.HttpDestination;
import org.eclipse.jetty.client.AbstractConnectionPool;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.ClientConnectionFactoryOverHTTP2;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The host's {@link OutboundHttp}, on Jetty's HTTP client: one Jetty client per {@link Profile} (egress
 * policy, TLS settings, connect timeout: the things Jetty fixes per client), made on first use and
 * kept, each reading its TCP connections on virtual threads ({@link VirtualThreadConnector}), with HTTP/1.1 and HTTP/2 (ALPN on https, prior-knowledge h2c on request), the proxy rules,
 * a {@link GuardedResolver} for its egress policy, gzip decoding, and redirects left to
 * {@link OutboundExchange} (which follows them only for GET and HEAD). All clients share one thread pool.
 *
 * <p>Threading: thread-safe. Lifecycle: {@link #close()} stops every client (in-flight exchanges fail).
 */
public final class OutboundClient implements OutboundHttp, AutoCloseable {
    /**
     * What Jetty fixes per client. {@code streamedBody}: the request body is an {@code InputStream},
     * which Jetty may read on whatever thread completes a write, so that client keeps Jetty's default
     * invocation type (blocking); every other client tells Jetty its callbacks never block.
     */
    record Profile(Egress egress, Tls tls, Duration connectTimeout, boolean streamedBody) {}

    /** Connections of one destination, for leak checks and health. */
    public record PoolStats(String destination, int active, int idle) {}

    private static final int MAX_CONNECTIONS_PER_DESTINATION = 256;
    private static final Duration POOLED_IDLE = Duration.ofSeconds(30);

    private final ProxyRules proxies;
    private final GuardedResolver.Lookup lookup;
    private final Function<Egress, EgressPolicy> policies;
    private final String userAgent;
    private final QueuedThreadPool threads;
    /**
     * Network buffers for every client. Jetty's default keeps at most half its thread pool's size
     * (32 here) per bucket: with more connections than that reading at once, each response
     * allocated (and zeroed) a fresh direct buffer. Bounded by bytes, not by count.
     */
    private final ArrayByteBufferPool buffers = new ArrayByteBufferPool(0, 2048, 65536, Integer.MAX_VALUE);
    private final Map<Profile, HttpClient> clients = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param proxies   which proxy each target uses
     * @param userAgent the default {@code User-Agent} (a request's own header wins)
     */
    public OutboundClient(ProxyRules proxies, String userAgent) {
        this(proxies, userAgent, java.net.InetAddress::getAllByName);
    }

    /** With a name lookup of its own (tests script one that answers differently each time). */
    public OutboundClient(ProxyRules proxies, String userAgent, GuardedResolver.Lookup lookup) {
        this(proxies, userAgent, lookup, EgressPolicy::of);
    }

    /**
     * For tests only: {@code policies} makes the policy a request's {@link Egress} is checked with
     * ({@link EgressPolicy#of} in production), so a test can count a loopback address as public
     * ({@link EgressPolicy#treatingAsPublic}) and watch public-only refuse the others.
     */
    OutboundClient(ProxyRules proxies, String userAgent, GuardedResolver.Lookup lookup,
                   Function<Egress, EgressPolicy> policies) {
        this.policies = policies;
        this.lookup = lookup;
        this.proxies = proxies;
        this.userAgent = userAgent;
        this.threads = new QueuedThreadPool(64, 2, 60_000);
        threads.setName("outbound");
        threads.setDaemon(true);
        try {
            threads.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the outbound thread pool", e);
        }
    }

    @Override
    public Exchange prepare(Request request) {
        var client = client(new Profile(request.egress(), request.tls(), request.connectTimeout(),
                request.bodyStream() != null));
        return new OutboundExchange(client, request);
    }

    /** Active and idle connections per destination, over every client. */
    public List<PoolStats> poolStats() {
        var all = new ArrayList<PoolStats>();
        for (var client : clients.values()) {
            for (var destination : client.getDestinations()) {
                if (destination instanceof HttpDestination d && d.getConnectionPool() instanceof AbstractConnectionPool pool)
                    all.add(new PoolStats(d.getOrigin().asString(), pool.getActiveConnectionCount(),
                            pool.getIdleConnectionCount()));
            }
        }
        return all;
    }

    private HttpClient client(Profile profile) {
        if (closed) throw new IllegalStateException("the outbound client is closed");
        return clients.computeIfAbsent(profile, this::start);
    }

    private HttpClient start(Profile profile) {
        var connector = new VirtualThreadConnector();
        connector.setSslContextFactory(TlsMaterial.factory(profile.tls()));
        connector.setConnectTimeout(profile.connectTimeout());
        connector.setSelectors(1);
        connector.setExecutor(threads);
        var http2 = new HTTP2Client(connector);
        var transport = new HttpClientTransportDynamic(connector, HttpClientConnectionFactory.HTTP11,
                new ClientConnectionFactoryOverHTTP2.HTTP2(http2));
        // Our only response listener (BodyListener) never blocks: it hands the head and Jetty's content
        // source to the caller's thread, which reads the content itself. Saying so lets Jetty run its
        // callbacks on the thread that read wherever it asks, instead of handing them to a pool thread
        // (with Jetty's selector that was a context switch per response). TCP connections read on
        // virtual threads anyway (VirtualThreadConnector); the selector is left to other transports.
        if (!profile.streamedBody())
            transport.setInvocationType(org.eclipse.jetty.util.thread.Invocable.InvocationType.NON_BLOCKING);
        var client = new HttpClient(transport);
        client.setExecutor(threads);
        client.setFollowRedirects(false);
        // cookies are never kept: one client serves every session and tenant, so a cookie one call
        // received must not ride along on another's (and a model call has no use for them)
        client.setHttpCookieStore(new HttpCookieStore.Empty());
        client.setByteBufferPool(buffers);
        client.setSocketAddressResolver(new GuardedResolver(policies.apply(profile.egress()), lookup, threads));
        client.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, userAgent));
        client.setMaxConnectionsPerDestination(MAX_CONNECTIONS_PER_DESTINATION);
        client.setIdleTimeout(POOLED_IDLE.toMillis());
        client.setConnectTimeout(profile.connectTimeout().toMillis());
        RuleProxy.install(client, proxies);
        try {
            client.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start an outbound HTTP client", e);
        }
        // (start() installs it) no server credentials are ever stored: the handler would only turn a 401
        // that lacks WWW-Authenticate (OpenAI's wrong-key answer) into a protocol violation, not the 401
        client.getProtocolHandlers().remove(WWWAuthenticationProtocolHandler.NAME);
        // OutboundExchange follows redirects itself (checking each hop); with redirects off Jetty's handler
        // only cost a look per response
        client.getProtocolHandlers().remove(RedirectProtocolHandler.NAME);
        return client;
    }

    /**
     * Loads what starting TLS for a first TLS connection loads (Jetty's TLS factory with the JDK's trust
     * store and provider, an engine), on the calling thread, and keeps nothing: for a run that records the AOT cache
     * ({@code caduceus.aot.recording}), so that the cache holds those classes although TLS is started
     * only by a client's first TLS connection; an https model's first turn then loads them from the cache
     * (bench/README.md, issue 48). Best effort: a failure is ignored, it only leaves them out.
     */
    public void warmUpTls() {
        var factory = TlsMaterial.factory(Tls.DEFAULT);
        try {
            factory.start();
            factory.newSSLEngine("localhost", 443).closeOutbound();
        } catch (Exception e) {
            // only the cache's coverage is at stake
        } finally {
            try {
                factory.stop();
            } catch (Exception e) {
                // nothing was opened that outlives the factory
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        for (var client : clients.values()) {
            try {
                client.stop();
            } catch (Exception e) {
                // stopping fails only when already failed; nothing is left to release
            }
        }
        clients.clear();
        try {
            threads.stop();
        } catch (Exception e) {
            // as above
        }
    }
}
