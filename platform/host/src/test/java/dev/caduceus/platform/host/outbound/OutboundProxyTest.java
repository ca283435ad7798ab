package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.outbound.OutboundHttp.Egress;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import dev.caduceus.spi.outbound.OutboundHttp.Request;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.server.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outbound client through a real forward proxy, Debian's {@code tinyproxy} ({@link Tinyproxy}):
 * plain http upstreams as absolute-URI requests, https upstreams through a {@code CONNECT} tunnel
 * (with a private CA), {@code NO_PROXY} bypass, proxy credentials from the proxy URL, and a proxy
 * that refuses. The proxy's outgoing connections come from {@value Tinyproxy#OUTGOING}, so each
 * upstream knows from the client address whether a request came through it.
 */
class OutboundProxyTest {
    private static final String PASSWORD = "pr0xy-S3cret";
    private static final String WRONG_PASSWORD = "wr0ng-S3cret";
    /** What tinyproxy 1.11 answers to wrong credentials (401; most proxies say 407). */
    private static final int AUTH_REFUSED = 401;

    @TempDir
    Path dir;

    private static TestCa ca;
    private static TestServers.EchoPair upstreams;
    private Tinyproxy proxy;
    private OutboundClient client;

    @BeforeAll
    static void upstreams() throws Exception {
        ca = TestCa.shared();
        upstreams = TestServers.EchoPair.start(ca);
    }

    @AfterAll
    static void stopUpstreams() throws Exception {
        upstreams.close();
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) client.close();
        if (proxy != null) proxy.close();
    }

    private OutboundClient client(Map<String, String> env) {
        client = new OutboundClient(ProxyRules.fromEnvironment(env), "caduceus-test");
        return client;
    }

    private static boolean proxied(TestServers.Seen seen) throws Exception {
        return seen.remoteAddress().equals(InetAddress.getByName(Tinyproxy.OUTGOING));
    }

    @Test
    void aPlainHttpUpstreamIsReachedThroughTheProxy() throws Exception {
        proxy = Tinyproxy.start(dir);
        var http = client(Map.of("HTTP_PROXY", proxy.url(null)));
        try (var r = http.send(Request.post(upstreams.plain().uri("/echo"), "text/plain", "via".getBytes(UTF_8)))) {
            assertEquals(200, r.status());
            assertEquals("POST via", r.text(100));
        }
        var seen = upstreams.plain().seen().getLast();
        assertTrue(proxied(seen), "the upstream saw " + seen.remote());
        assertNotNull(seen.header("Via"), "tinyproxy adds Via");
        assertTrue(seen.header("Via").contains("tinyproxy"), seen.header("Via"));
    }

    @Test
    void anHttpsUpstreamIsReachedThroughAConnectTunnel() throws Exception {
        proxy = Tinyproxy.start(dir, "ConnectPort " + upstreams.secure().port());
        var http = client(Map.of("HTTPS_PROXY", proxy.url(null)));
        try (var r = http.send(Request.get(upstreams.secure().uri("/tunnelled")).withTls(ca.trustingTls()))) {
            assertEquals(200, r.status());
            assertEquals("GET ", r.text(100));
        }
        var seen = upstreams.secure().seen().getLast();
        assertEquals("/tunnelled", seen.path());
        assertTrue(proxied(seen), "the upstream saw " + seen.remote());
        assertNull(seen.header("Via"), "a tunnel carries the TLS bytes unchanged");
        assertTrue(proxy.log().contains("CONNECT 127.0.0.1:" + upstreams.secure().port()), proxy.log());
    }

    @Test
    void noProxyTargetsGoDirect() throws Exception {
        proxy = Tinyproxy.start(dir, "BasicAuth user " + PASSWORD);
        var url = proxy.url("user:" + PASSWORD);
        var http = client(Map.of("HTTP_PROXY", url, "HTTPS_PROXY", url, "NO_PROXY", "localhost,127.0.0.0/8"));
        try (var r = http.send(Request.get(upstreams.plain().uri("/direct")))) {
            assertEquals(200, r.status());
        }
        try (var r = http.send(Request.get(upstreams.secure().uri("/direct")).withTls(ca.trustingTls()))) {
            assertEquals(200, r.status());
        }
        for (var seen : List.of(upstreams.plain().seen().getLast(), upstreams.secure().seen().getLast())) {
            assertEquals("/direct", seen.path());
            assertFalse(proxied(seen), "went direct: " + seen.remote());
            assertNull(seen.header("Via"));
            assertNull(seen.header("Proxy-Authorization"), "the proxy's credentials never go to an upstream");
        }
        assertFalse(proxy.log().contains("/direct"), proxy.log());
    }

    @Test
    void proxyCredentialsComeFromTheProxyUrl() throws Exception {
        proxy = Tinyproxy.start(dir, "BasicAuth user " + PASSWORD, "ConnectPort " + upstreams.secure().port());
        var url = proxy.url("user:" + PASSWORD);
        var http = client(Map.of("HTTP_PROXY", url, "HTTPS_PROXY", url));
        try (var r = http.send(Request.get(upstreams.plain().uri("/authenticated")))) {
            assertEquals(200, r.status());
        }
        assertTrue(proxied(upstreams.plain().seen().getLast()));
        try (var r = http.send(Request.get(upstreams.secure().uri("/authenticated")).withTls(ca.trustingTls()))) {
            assertEquals(200, r.status());
        }
        assertTrue(proxied(upstreams.secure().seen().getLast()));
    }

    @Test
    void wrongProxyCredentialsAreAProxyFailureThatNeverShowsThePassword() throws Exception {
        proxy = Tinyproxy.start(dir, "BasicAuth user " + PASSWORD, "ConnectPort " + upstreams.secure().port());
        var url = proxy.url("user:" + WRONG_PASSWORD);
        var http = client(Map.of("HTTP_PROXY", url, "HTTPS_PROXY", url));
        int before = upstreams.secure().requests();
        var failure = assertThrows(Failure.class,
                () -> http.send(Request.get(upstreams.secure().uri("/tunnelled")).withTls(ca.trustingTls())));
        assertEquals(Failure.Kind.PROXY, failure.kind(), failure.toString());
        assertTrue(failure.getMessage().contains(" " + AUTH_REFUSED + " "), failure.getMessage());
        assertFalse(failure.requestSent(), "the request never left the client");
        assertNoPassword(failure);
        assertEquals(before, upstreams.secure().requests());

        // plain http: the proxy's refusal is the answer the caller sees
        int plainBefore = upstreams.plain().requests();
        try (var r = http.send(Request.get(upstreams.plain().uri("/refused")))) {
            assertEquals(AUTH_REFUSED, r.status());
            r.text(10_000);
        }
        assertEquals(plainBefore, upstreams.plain().requests());
    }

    @Test
    void aProxyThatRefusesTheTunnelIsAProxyFailure() throws Exception {
        proxy = Tinyproxy.start(dir, "ConnectPort 1"); // CONNECT only to port 1: the upstream's port is refused
        var url = proxy.url("user:" + PASSWORD);
        var http = client(Map.of("HTTPS_PROXY", url));
        var failure = assertThrows(Failure.class,
                () -> http.send(Request.get(upstreams.secure().uri("/refused")).withTls(ca.trustingTls())));
        assertEquals(Failure.Kind.PROXY, failure.kind(), failure.toString());
        assertTrue(failure.getMessage().contains("403"), failure.getMessage());
        assertTrue(failure.getMessage().contains("127.0.0.1:" + upstreams.secure().port()), failure.getMessage());
        assertFalse(failure.requestSent());
        assertNoPassword(failure);
    }

    @Test
    void aProxyThatIsDownIsReportedAsSuch() throws Exception {
        int nothing = TestServers.freePort();
        var http = client(Map.of("HTTPS_PROXY", "http://user:" + PASSWORD + "@127.0.0.1:" + nothing));
        var failure = assertThrows(Failure.class,
                () -> http.send(Request.get(upstreams.secure().uri("/unreachable")).withTls(ca.trustingTls())));
        assertEquals(Failure.Kind.UNREACHABLE, failure.kind(), failure.toString());
        assertFalse(failure.requestSent());
        assertNoPassword(failure);
    }

    @Test
    void publicOnlyThroughAProxyChecksTheTargetNameBeforeAnythingIsSent() throws Exception {
        proxy = Tinyproxy.start(dir, "ConnectPort " + upstreams.secure().port());
        var http = client(Map.of("HTTP_PROXY", proxy.url(null), "HTTPS_PROXY", proxy.url(null)));
        var egress = Egress.publicOnly(List.of("*.corp.test"));
        int before = upstreams.plain().requests();
        for (var target : List.of(upstreams.plain().uri("/literal"), upstreams.secure().uri("/literal"), upstreams.plain().uri("localhost", "/loopback-name"),
                upstreams.secure().uri("localhost", "/loopback-name"), upstreams.plain().uri("0x7f000001", "/odd-literal"),
                upstreams.plain().uri("0177.0.0.1", "/odd-literal"), upstreams.plain().uri("2130706433", "/odd-literal"),
                URI.create("http://wiki.corp.test/blocked"))) {
            var failure = assertThrows(Failure.class, () -> http.send(Request.get(target).withEgress(egress)
                    .withTls(ca.trustingTls())), target.toString());
            assertEquals(Failure.Kind.REFUSED, failure.kind(), target + ": " + failure);
            assertFalse(failure.requestSent());
        }
        assertEquals(before, upstreams.plain().requests());
        assertFalse(proxy.log().contains("literal") || proxy.log().contains("loopback-name")
                || proxy.log().contains("corp.test"), proxy.log());
    }

    /** Neither the message nor any cause's message carries a proxy password. */
    private static void assertNoPassword(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            var text = String.valueOf(t);
            assertFalse(text.contains(PASSWORD) || text.contains(WRONG_PASSWORD), "a password shows in: " + text);
        }
    }
}
