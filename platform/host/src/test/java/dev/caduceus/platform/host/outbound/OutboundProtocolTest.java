package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.outbound.TestServers.Kind;
import dev.caduceus.platform.host.outbound.TestServers.Route;
import dev.caduceus.platform.host.outbound.TestServers.Upstream;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import dev.caduceus.spi.outbound.OutboundHttp.Protocol;
import dev.caduceus.spi.outbound.OutboundHttp.Request;
import dev.caduceus.spi.outbound.OutboundHttp.Tls;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The outbound client's protocols and TLS against real Jetty upstreams on loopback: an HTTP/2-only
 * TLS upstream (ALPN offers only {@code h2}) with a private CA made by {@code keytool}
 * ({@link TestCa}), the CA's absence and a name the certificate does not cover as TLS failures, a
 * client certificate from PEM files, h2c by prior knowledge against an h2c-only connector, and
 * gzip- and deflate-encoded bodies decoded on the way in.
 */
class OutboundProtocolTest {

    private static TestCa ca;
    private static Upstream h2;
    private static Upstream h2ClientAuth;
    private static Upstream h2c;
    private static Upstream encoded;
    private static final AtomicReference<String> clientSubject = new AtomicReference<>();
    private OutboundClient client;

    /** Echoes the method, protocol and body; remembers the client certificate a TLS peer presented. */
    private static final Route ECHO = (request, response, callback) -> {
        if (org.eclipse.jetty.server.Request.getPathInContext(request).equals("/sse-slow")) {
            response.getHeaders().put("Content-Type", "text/event-stream");
            Upstream.flush(response, "data: one\n\n");
            h2.stall(Duration.ofSeconds(30));
            callback.succeeded();
            return true;
        }
        var body = Content.Source.asString(request, UTF_8);
        if (request.getAttribute(EndPoint.SslSessionData.ATTRIBUTE) instanceof EndPoint.SslSessionData tls
                && tls.peerCertificates() != null && tls.peerCertificates().length > 0) {
            X509Certificate peer = tls.peerCertificates()[0];
            clientSubject.set(peer.getSubjectX500Principal().getName());
        }
        response.getHeaders().put("Content-Type", "text/plain");
        Content.Sink.write(response, true, request.getMethod() + " " + request.getConnectionMetaData().getProtocol()
                + " " + body, callback);
        return true;
    };

    @BeforeAll
    static void upstreams() throws Exception {
        ca = TestCa.shared();
        h2 = Upstream.start("127.0.0.1", 0, Kind.H2_TLS_ONLY, ca.serverTls(false), ECHO);
        h2ClientAuth = Upstream.start("127.0.0.1", 0, Kind.H2_TLS_ONLY, ca.serverTls(true), ECHO);
        h2c = Upstream.start("127.0.0.1", 0, Kind.H2C_ONLY, null, ECHO);
        encoded = Upstream.http((request, response, callback) -> {
            var path = org.eclipse.jetty.server.Request.getPathInContext(request);
            if (path.equals("/empty-deflate")) {
                response.getHeaders().put("Content-Encoding", "deflate");
                response.write(true, ByteBuffer.allocate(0), callback);
                return true;
            }
            var text = "decoded ".repeat(1000);
            var bytes = new ByteArrayOutputStream();
            var deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, path.equals("/raw-deflate")); // nowrap: raw
            try (var out = path.equals("/gzip") ? new GZIPOutputStream(bytes) : new DeflaterOutputStream(bytes, deflater)) {
                out.write(text.getBytes(UTF_8));
            }
            response.getHeaders().put("Content-Type", "text/plain");
            response.getHeaders().put("Content-Encoding", path.equals("/gzip") ? "gzip" : "deflate");
            response.write(true, ByteBuffer.wrap(bytes.toByteArray()), callback);
            return true;
        });
    }

    @AfterAll
    static void stopUpstreams() throws Exception {
        for (var upstream : List.of(h2, h2ClientAuth, h2c, encoded)) upstream.close();
    }

    @AfterEach
    void stop() {
        if (client != null) client.close();
    }

    private OutboundClient client() {
        client = new OutboundClient(ProxyRules.direct(), "caduceus-test");
        return client;
    }

    @Test
    void anHttp2OnlyTlsUpstreamSpeaksHttp2WithThePrivateCa() throws Exception {
        var http = client();
        try (var r = http.send(Request.get(h2.uri("/h2")).withTls(ca.trustingTls()))) {
            assertEquals(200, r.status());
            assertEquals("HTTP/2.0", r.protocol());
            assertEquals("GET HTTP/2.0 ", r.text(1000));
        }
        var post = Request.post(h2.uri("/h2"), "text/plain", "over h2".getBytes(UTF_8)).withTls(ca.trustingTls());
        try (var r = http.send(post)) {
            assertEquals("HTTP/2.0", r.protocol());
            assertEquals("POST HTTP/2.0 over h2", r.text(1000));
        }
        try (var r = http.send(Request.get(h2.uri("localhost", "/h2")).withTls(ca.trustingTls()))) {
            assertEquals(200, r.status(), "the certificate names localhost too");
        }
    }

    @Test
    void theProtocolChoiceHoldsOnHttps() throws Exception {
        var http = client();
        try (var r = http.send(Request.get(h2.uri("/h2")).withTls(ca.trustingTls()).withProtocol(Protocol.H2C))) {
            assertEquals("HTTP/2.0", r.protocol(), "H2C on https means HTTP/2 only");
        }
        var failure = assertThrows(Failure.class, () -> http.send(Request.get(h2.uri("/h2")).withTls(ca.trustingTls())
                .withProtocol(Protocol.HTTP_1_1)));
        // HTTP/1.1 only offers no h2; this server then speaks h2 anyway (its ALPN default), which the
        // client reads as a broken HTTP/1.1 answer (a server without that default fails the handshake)
        assertTrue(failure.kind() == Failure.Kind.BROKEN || failure.kind() == Failure.Kind.TLS, failure.toString());
    }

    @Test
    void http2StreamsShareOneConnectionAndACancelledStreamLeavesItUsable() throws Exception {
        var http = client();
        long before = h2.connections();
        for (int i = 0; i < 200; i++) {
            try (var r = http.send(Request.get(h2.uri("/many")).withTls(ca.trustingTls()))) {
                assertEquals("GET HTTP/2.0 ", r.text(100));
            }
        }
        assertTrue(h2.connections() - before <= 1, "200 calls on " + (h2.connections() - before) + " connections");

        var exchange = http.prepare(Request.get(h2.uri("/sse-slow")).withTls(ca.trustingTls()));
        var events = exchange.send().events();
        assertEquals("one", events.next().orElseThrow().data());
        var outcome = new CompletableFuture<Failure>();
        var reader = Thread.ofPlatform().name("h2-reader").start(() -> {
            try {
                outcome.completeExceptionally(new AssertionError("read after cancel returned " + events.next()));
            } catch (Failure f) {
                outcome.complete(f);
            }
        });
        TestServers.await("the reader blocks", Duration.ofSeconds(10),
                () -> reader.getState() == Thread.State.WAITING || reader.getState() == Thread.State.TIMED_WAITING);
        exchange.cancel();
        assertEquals(Failure.Kind.CANCELLED, outcome.get(10, TimeUnit.SECONDS).kind());
        exchange.close();
        try (var r = http.send(Request.get(h2.uri("/after")).withTls(ca.trustingTls()))) {
            assertEquals("GET HTTP/2.0 ", r.text(100), "the connection serves the next stream");
        }
        TestServers.await("no stream stays active", Duration.ofSeconds(10),
                () -> http.poolStats().stream().mapToInt(OutboundClient.PoolStats::active).sum() == 0);
    }

    @Test
    void withoutTheCaTheHandshakeFailsAsTls() {
        var failure = assertThrows(Failure.class, () -> client().send(Request.get(h2.uri("/h2"))));
        assertEquals(Failure.Kind.TLS, failure.kind(), failure.toString());
        assertFalse(failure.requestSent(), "nothing of the request goes out before the handshake");
        assertTrue(failure.getMessage().contains(h2.uri("/h2").toString()), failure.getMessage());
    }

    @Test
    void aNameTheCertificateDoesNotCoverFailsAsTls() {
        // the name resolves to the right server, but its certificate is for 127.0.0.1 and localhost
        // only; the lookup answers a bare address, as a resolver of its own would, so the TLS peer
        // name must come from the URL and not from the address (127.0.0.1, which the certificate covers)
        client = new OutboundClient(ProxyRules.direct(), "caduceus-test",
                host -> new InetAddress[] {InetAddress.getByAddress(new byte[] {127, 0, 0, 1})});
        var failure = assertThrows(Failure.class,
                () -> client.send(Request.get(h2.uri("elsewhere.test", "/h2")).withTls(ca.trustingTls())));
        assertEquals(Failure.Kind.TLS, failure.kind(), failure.toString());
    }

    @Test
    void aClientCertificateFromPemFilesIsPresented() throws Exception {
        var http = client();
        try (var r = http.send(Request.get(h2ClientAuth.uri("/mutual")).withTls(ca.clientCertificateTls()))) {
            assertEquals(200, r.status());
            assertEquals("HTTP/2.0", r.protocol());
        }
        var subject = clientSubject.get();
        assertNotNull(subject, "the server saw a client certificate");
        assertEquals("CN=caduceus-test-client", subject);

        // without one the server refuses; the client meets either the server's alert (TLS) or, when it
        // is still writing, the closed connection (BROKEN: broken pipe, closed channel), whichever
        // comes first, in TLS 1.2 and 1.3 alike
        var failure = assertThrows(Failure.class, () -> http.send(Request.get(h2ClientAuth.uri("/mutual"))
                .withTls(ca.trustingTls())));
        assertTrue(failure.kind() == Failure.Kind.TLS || failure.kind() == Failure.Kind.BROKEN,
                "no certificate: " + failure);
    }

    @Test
    void aClientCertificateWithoutItsKeyIsRefusedAtOnce() {
        assertThrows(IllegalArgumentException.class, () -> new Tls(java.util.Optional.of(ca.caPem()),
                java.util.Optional.of(ca.clientChainPem()), java.util.Optional.empty()));
    }

    @Test
    void h2cByPriorKnowledge() throws Exception {
        var http = client();
        try (var r = http.send(Request.post(h2c.uri("/h2c"), "text/plain", "clear".getBytes(UTF_8))
                .withProtocol(Protocol.H2C))) {
            assertEquals(200, r.status());
            assertEquals("HTTP/2.0", r.protocol());
            assertEquals("POST HTTP/2.0 clear", r.text(1000));
        }
        assertEquals("HTTP/2.0", h2c.seen().getLast().protocol());
    }

    @Test
    void gzipAndDeflateBodiesAreDecoded() throws Exception {
        var http = client();
        var expected = "decoded ".repeat(1000);
        for (var path : List.of("/gzip", "/deflate", "/raw-deflate")) {
            try (var r = http.send(Request.get(encoded.uri(path)))) {
                assertEquals(200, r.status(), path);
                assertArrayEquals(expected.getBytes(UTF_8), r.body().readAllBytes(), path);
            }
            var asked = encoded.seen().getLast().header("Accept-Encoding");
            assertNotNull(asked, path);
            assertTrue(asked.contains("gzip") && asked.contains("deflate"), asked);
        }
        try (var r = http.send(Request.get(encoded.uri("/empty-deflate")))) {
            assertEquals("", r.text(100), "an empty deflate body is empty, not a broken stream");
        }
        var names = new ArrayList<String>();
        for (var seen : encoded.seen()) names.add(seen.path());
        assertEquals(List.of("/gzip", "/deflate", "/raw-deflate", "/empty-deflate"), names);
    }
}
