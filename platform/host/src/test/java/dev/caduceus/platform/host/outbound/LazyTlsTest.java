package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.outbound.TestServers.Kind;
import dev.caduceus.platform.host.outbound.TestServers.Upstream;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientConnectionFactory;
import org.eclipse.jetty.client.transport.HttpClientTransportDynamic;
import org.eclipse.jetty.io.Content;
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
    private static TestCa ca;
    private static Upstream plain;
    private static Upstream secure;
    private HttpClient client;

    @BeforeAll
    static void upstreams() throws Exception {
        ca = TestCa.shared();
        TestServers.Route echo = (request, response, callback) -> {
            Content.Sink.write(response, true, request.getMethod() + " " + request.getHttpURI().getPath(), callback);
            return true;
        };
        plain = Upstream.http(echo);
        secure = Upstream.start("127.0.0.1", 0, Kind.HTTP1_TLS, ca.serverTls(false), echo);
    }

    @AfterAll
    static void stopUpstreams() throws Exception {
        plain.close();
        secure.close();
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

    private static String get(HttpClient client, java.net.URI uri) throws Exception {
        var response = client.newRequest(uri).timeout(10, TimeUnit.SECONDS).send();
        assertEquals(200, response.getStatus());
        return new String(response.getContent(), UTF_8);
    }

    @Test
    void theFirstHttpsConnectionStartsTlsAndPlainHttpNeverDoes() throws Exception {
        var tls = TlsMaterial.factory(ca.trustingTls());
        var http = start(tls);
        assertFalse(tls.isStarted(), "the client's start leaves TLS alone");
        assertEquals("GET /plain", get(http, plain.uri("/plain")));
        assertFalse(tls.isStarted(), "a plain-http request does not need TLS");
        assertEquals("GET /secure", get(http, secure.uri("/secure")));
        assertTrue(tls.isStarted(), "the first https connection started it");
        assertEquals("GET /again", get(http, secure.uri("/again")));
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
        assertEquals("GET /plain", get(http, plain.uri("/plain")), "plain http is unaffected");
        var failure = assertThrows(ExecutionException.class, () -> http.newRequest(secure.uri("/secure"))
                .timeout(10, TimeUnit.SECONDS).send());
        var text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) text.append(t).append(" / ");
        assertTrue(text.toString().contains("the trust store is unreadable (test)"), text.toString());
        assertFalse(text.toString().contains("TimeoutException"), "failed at once, not timed out: " + text);
    }
}
