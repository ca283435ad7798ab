package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import java.net.URI;
import java.util.ArrayList;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The basic exchanges on a real Jetty server on loopback: GET, POST with a body, SSE, a 307 on POST. */
class OutboundSmokeTest {
    private TestServers.Upstream server;
    private URI base;
    private OutboundClient client;

    @BeforeEach
    void start() throws Exception {
        server = TestServers.Upstream.http((request, response, callback) -> {
            var path = Request.getPathInContext(request);
            switch (path) {
                case "/echo" -> {
                    var body = Content.Source.asString(request, UTF_8);
                    response.getHeaders().put("Content-Type", "text/plain");
                    Content.Sink.write(response, true, request.getMethod() + " " + body, callback);
                }
                case "/sse" -> {
                    response.getHeaders().put("Content-Type", "text/event-stream");
                    Content.Sink.write(response, true, "data: one\n\n: comment\nevent: x\ndata: two\ndata: three\n\ndata: [DONE]\n\n", callback);
                }
                case "/big" -> { // 4 MiB in 64 KiB writes, each byte its offset mod 251
                    response.getHeaders().put("Content-Type", "application/octet-stream");
                    for (int part = 0; part < 64; part++) {
                        var bytes = new byte[64 * 1024];
                        for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) ((part * bytes.length + i) % 251);
                        var written = new org.eclipse.jetty.util.FutureCallback();
                        response.write(false, java.nio.ByteBuffer.wrap(bytes), written);
                        written.get(); // a slow reader holds this write back
                    }
                    response.write(true, java.nio.ByteBuffer.allocate(0), callback);
                }
                case "/cookie" -> { // sets a cookie, and says which cookie came with the request
                    response.getHeaders().put("Set-Cookie", "session=secret-of-another-call; Path=/");
                    var cookie = request.getHeaders().get("Cookie");
                    Content.Sink.write(response, true, cookie == null ? "no cookie" : cookie, callback);
                }
                case "/host" -> Content.Sink.write(response, true, String.valueOf(request.getHeaders().get("Host")), callback);
                case "/moved" -> {
                    response.setStatus(307);
                    response.getHeaders().put("Location", "/echo");
                    callback.succeeded();
                }
                default -> Response.writeError(request, response, callback, 404);
            }
            return true;
        });
        base = server.uri("");
        client = new OutboundClient(ProxyRules.direct(), "caduceus-test");
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        server.close();
    }

    /** One client serves every session and tenant: a cookie one call received never rides on another. */
    @Test
    void aCookieOneCallReceivedIsNotSentOnTheNext() throws Exception {
        for (int i = 0; i < 2; i++) {
            try (var r = client.send(OutboundHttp.Request.get(base.resolve("/cookie")))) {
                assertEquals("session=secret-of-another-call; Path=/", r.header("Set-Cookie").orElseThrow());
                assertEquals("no cookie", r.text(1000));
            }
        }
        // a caller's own Cookie header is sent as given
        try (var r = client.send(OutboundHttp.Request.get(base.resolve("/cookie")).withHeader("Cookie", "mine=1"))) {
            assertEquals("mine=1", r.text(1000));
        }
    }

    @Test
    void theHostHeaderNamesTheTargetUnlessTheCallerSetsIt() throws Exception {
        try (var r = client.send(OutboundHttp.Request.get(base.resolve("/host")))) {
            assertEquals(base.getHost() + ":" + base.getPort(), r.text(1000));
        }
        try (var r = client.send(OutboundHttp.Request.get(base.resolve("/host")).withHeader("Host", "virtual.example"))) {
            assertEquals("virtual.example", r.text(1000));
        }
    }

    @Test
    void readAllBytesReturnsAWholeBodyOfManyChunks() throws Exception {
        try (var r = client.send(OutboundHttp.Request.get(base.resolve("/big")))) {
            var bytes = r.body().readAllBytes();
            assertEquals(4 * 1024 * 1024, bytes.length);
            for (int i = 0; i < bytes.length; i++)
                if (bytes[i] != (byte) (i % 251)) throw new AssertionError("byte " + i + " is " + bytes[i]);
        }
        try (var r = client.send(OutboundHttp.Request.post(base.resolve("/echo"), "text/plain", "short".getBytes(UTF_8)))) {
            assertEquals("POST short", new String(r.body().readAllBytes(), UTF_8));
        }
    }

    @Test
    void aBufferBodySendsItsBytesFromPositionToLimitAndIsLeftAsItWas() throws Exception {
        var buffer = java.nio.ByteBuffer.wrap("xx[region]yy".getBytes(UTF_8), 2, 8);
        var request = OutboundHttp.Request.of("POST", base.resolve("/echo")).withHeader("Content-Type", "text/plain")
                .withBody(buffer);
        for (int i = 0; i < 2; i++) // the same request twice: the body is read, never consumed
            try (var r = client.send(request)) {
                assertEquals("POST [region]", new String(r.body().readAllBytes(), UTF_8));
            }
        assertEquals(2, buffer.position());
        assertEquals(10, buffer.limit());
    }

    @Test
    void getAndPost() throws Exception {
        try (var r = client.send(OutboundHttp.Request.get(base.resolve("/echo")))) {
            assertEquals(200, r.status());
            assertEquals("GET ", r.text(1000));
        }
        try (var r = client.send(OutboundHttp.Request.post(base.resolve("/echo"), "text/plain", "hello".getBytes(UTF_8)))) {
            assertEquals("POST hello", r.text(1000));
            assertEquals("HTTP/1.1", r.protocol());
        }
    }

    @Test
    void aStreamedBodyIsSentAsItIsRead() throws Exception {
        var stream = new java.io.ByteArrayInputStream("streamed ".repeat(10_000).getBytes(UTF_8));
        try (var r = client.send(OutboundHttp.Request.of("POST", base.resolve("/echo"))
                .withHeader("Content-Type", "text/plain").withBodyStream(stream))) {
            assertEquals("POST " + "streamed ".repeat(10_000), r.text(200_000));
        }
    }

    @Test
    void aBodyMuchLargerThanTheQueueArrivesWholeAndInOrderThroughASlowReader() throws Exception {
        // the pump pauses at SourceStream.MAX_QUEUED and the reader restarts it, many times over
        try (var r = client.send(OutboundHttp.Request.get(base.resolve("/big")))) {
            var body = r.body();
            var piece = new byte[1000];
            long offset = 0;
            for (int n; (n = body.read(piece, 0, piece.length)) >= 0; ) {
                for (int i = 0; i < n; i++)
                    if (piece[i] != (byte) ((offset + i) % 251)) throw new AssertionError("byte " + (offset + i) + " differs");
                offset += n;
                if (offset % (512 * 1024) < n) Thread.yield(); // now and then, let the pump fill the queue
            }
            assertEquals(64L * 64 * 1024, offset);
        }
    }

    @Test
    void events() throws Exception {
        try (var r = client.send(OutboundHttp.Request.get(base.resolve("/sse")))) {
            var events = r.events();
            var all = new ArrayList<String>();
            for (var e = events.next(); e.isPresent(); e = events.next()) all.add(e.get().event() + "=" + e.get().data());
            assertEquals(java.util.List.of("message=one", "x=two\nthree", "message=[DONE]"), all);
        }
    }

    @Test
    void aRedirectedPostIsAnError() {
        var failure = assertThrows(Failure.class,
                () -> client.send(OutboundHttp.Request.post(base.resolve("/moved"), "text/plain", new byte[1])));
        assertEquals(Failure.Kind.REDIRECT, failure.kind());
        assertTrue(failure.getMessage().contains("307") && failure.getMessage().contains("/echo"), failure.getMessage());
    }

    @Test
    void aRedirectedGetIsFollowed() throws Exception {
        try (var r = client.send(OutboundHttp.Request.get(base.resolve("/moved")))) {
            assertEquals(200, r.status());
            assertEquals(base.resolve("/echo"), r.uri());
        }
    }

    @Test
    void publicOnlyRefusesLoopback() {
        var failure = assertThrows(Failure.class, () -> client.send(OutboundHttp.Request.get(base.resolve("/echo"))
                .withEgress(OutboundHttp.Egress.publicOnly(java.util.List.of()))));
        assertEquals(Failure.Kind.REFUSED, failure.kind());
    }
}
