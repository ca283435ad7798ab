package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.outbound.TestServers.Upstream;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientConnectionFactory;
import org.eclipse.jetty.client.transport.HttpClientTransportDynamic;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS on the outbound connector is made ready by the first TLS connection, not by the client's start:
 * a client that only talks plain http never starts its TLS factory; the first https request starts it
 * and succeeds; stopping the client stops it; and a factory that cannot start fails that request with
 * the reason, instead of hanging it or failing the client's start.
 */
class LazyTlsTest {
    private static TestServers.EchoPair upstreams;
    private HttpClient client;

    @BeforeAll
    static void upstreams() throws Exception {
        upstreams = TestServers.EchoPair.start(TestCa.shared());
    }

    @AfterAll
    static void stopUpstreams() throws Exception {
        upstreams.close();
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) client.stop();
    }

    private HttpClient start(SslContextFactory.Client tls) throws Exception {
        var connector = new VirtualThreadConnector();
        connector.setSslContextFactory(tls);
        client = new HttpClient(new HttpClientTransportDynamic(connector, HttpClientConnectionFactory.HTTP11));
        client.start();
        return client;
    }

    /** GETs {@code path} of {@code upstream}; the path the upstream saw last. */
    private static String get(HttpClient client, Upstream upstream, String path) throws Exception {
        var response = client.newRequest(upstream.uri(path)).timeout(10, TimeUnit.SECONDS).send();
        assertEquals(200, response.getStatus());
        assertEquals("GET ", new String(response.getContent(), UTF_8));
        return upstream.seen().getLast().path();
    }

    @Test
    void theFirstHttpsConnectionStartsTlsAndPlainHttpNeverDoes() throws Exception {
        var tls = TlsMaterial.factory(TestCa.shared().trustingTls());
        var http = start(tls);
        assertFalse(tls.isStarted(), "the client's start leaves TLS alone");
        assertEquals("/plain", get(http, upstreams.plain(), "/plain"));
        assertFalse(tls.isStarted(), "a plain-http request does not need TLS");
        assertEquals("/secure", get(http, upstreams.secure(), "/secure"));
        assertTrue(tls.isStarted(), "the first https connection started it");
        assertEquals("/again", get(http, upstreams.secure(), "/again"));
        http.stop();
        client = null;
        assertTrue(tls.isStopped(), "stopping the client stops what its first TLS connection started");
    }

    @Test
    void aTlsFactoryThatCannotStartFailsTheRequestWithItsReason() throws Exception {
        var broken = new SslContextFactory.Client() {
            @Override
            protected void doStart() throws Exception {
                throw new java.security.KeyStoreException("the trust store is unreadable (test)");
            }
        };
        var http = start(broken);
        assertEquals("/plain", get(http, upstreams.plain(), "/plain"), "plain http is unaffected");
        var failure = assertThrows(ExecutionException.class, () -> http.newRequest(upstreams.secure().uri("/secure"))
                .timeout(10, TimeUnit.SECONDS).send());
        var text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) text.append(t).append(" / ");
        assertTrue(text.toString().contains("the trust store is unreadable (test)"), text.toString());
        assertFalse(text.toString().contains("TimeoutException"), "failed at once, not timed out: " + text);
    }
}
