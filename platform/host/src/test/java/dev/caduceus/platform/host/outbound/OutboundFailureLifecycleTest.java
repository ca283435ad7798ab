package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.outbound.TestServers.Raw;
import dev.caduceus.platform.host.outbound.TestServers.Upstream;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import dev.caduceus.spi.outbound.OutboundHttp.Request;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Content;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * How exchanges fail and end: an upstream that stalls (idle and total timeouts, before and after the
 * headers), one that drops the connection after reading the whole request (reported once, never
 * re-sent), a kept-alive connection the server closed while idle (replaced), cancellation from
 * another thread while a send or a body read is blocked, the SSE line cap, and the pool after many
 * calls. Timeouts are short so the tests are quick; nothing asserts how long anything took, and
 * waits are on latches, thread states or polled conditions with a deadline. Each test has a
 * {@link Timeout} only so a regression fails instead of hanging.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OutboundFailureLifecycleTest {
    private static final Duration SHORT = Duration.ofMillis(300);
    private static final Duration LONG = Duration.ofSeconds(30);
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private static Upstream upstream;
    private OutboundClient client;

    @BeforeAll
    static void upstream() throws Exception {
        upstream = Upstream.http((request, response, callback) -> {
            var path = org.eclipse.jetty.server.Request.getPathInContext(request);
            switch (path) {
                case "/stall" -> upstream.stall(LONG); // no headers
                case "/stall-after-headers" -> {
                    response.getHeaders().put("Content-Type", "text/plain");
                    Upstream.flush(response, "");
                    upstream.stall(LONG);
                }
                case "/sse-slow" -> {
                    response.getHeaders().put("Content-Type", "text/event-stream");
                    Upstream.flush(response, "data: one\n\n");
                    upstream.stall(LONG);
                }
                case "/redirect-with-body" -> {
                    response.setStatus(302);
                    response.getHeaders().put("Location", "/small");
                    Content.Sink.write(response, true, "moved ".repeat(40_000), callback);
                    return true;
                }
                case "/big" -> {
                    Content.Sink.write(response, true, "x".repeat(256 * 1024), callback);
                    return true;
                }
                default -> {
                    if (path.startsWith("/line/")) {
                        int length = Integer.parseInt(path.substring(6));
                        response.getHeaders().put("Content-Type", "text/event-stream");
                        Content.Sink.write(response, true, "data: " + "x".repeat(length - 6) + "\n\ndata: after\n\n",
                                callback);
                        return true;
                    }
                    Content.Sink.write(response, true, "ok " + Content.Source.asString(request, UTF_8), callback);
                    return true;
                }
            }
            callback.succeeded();
            return true;
        });
    }

    @AfterAll
    static void stopUpstream() throws Exception {
        upstream.close();
    }

    @BeforeEach
    void client() {
        client = new OutboundClient(ProxyRules.direct(), "caduceus-test");
    }

    @AfterEach
    void stop() {
        client.close();
    }

    private int active() {
        return client.poolStats().stream().mapToInt(OutboundClient.PoolStats::active).sum();
    }

    private int idle() {
        return client.poolStats().stream().mapToInt(OutboundClient.PoolStats::idle).sum();
    }

    // --- stalls and timeouts

    @Test
    void anUpstreamThatSendsNoHeadersHitsTheIdleTimeout() {
        var failure = assertThrows(Failure.class,
                () -> client.send(Request.get(upstream.uri("/stall")).withTimeouts(LONG, SHORT, null)));
        assertEquals(Failure.Kind.TIMEOUT, failure.kind(), failure.toString());
        assertTrue(failure.getMessage().startsWith("Idle timeout"), failure.getMessage());
        assertTrue(failure.requestSent());
    }

    @Test
    void anUpstreamThatStallsAfterTheHeadersHitsTheIdleTimeoutOnTheBody() throws Exception {
        try (var r = client.send(Request.get(upstream.uri("/stall-after-headers")).withTimeouts(LONG, SHORT, null))) {
            assertEquals(200, r.status());
            var failure = assertThrows(Failure.class, () -> r.body().read());
            assertEquals(Failure.Kind.TIMEOUT, failure.kind(), failure.toString());
            assertTrue(failure.getMessage().startsWith("Idle timeout"), failure.getMessage());
            assertTrue(failure.requestSent());
        }
        TestServers.await("the timed-out connection is gone", DEADLINE, () -> active() == 0);
    }

    @Test
    void theTotalTimeoutSpansHeadersAndBody() throws Exception {
        var before = assertThrows(Failure.class,
                () -> client.send(Request.get(upstream.uri("/stall")).withTimeouts(LONG, LONG, SHORT)));
        assertEquals(Failure.Kind.TIMEOUT, before.kind(), before.toString());
        assertTrue(before.getMessage().startsWith("Total timeout"), before.getMessage());

        try (var r = client.send(Request.get(upstream.uri("/stall-after-headers")).withTimeouts(LONG, LONG, SHORT))) {
            assertEquals(200, r.status());
            var failure = assertThrows(Failure.class, () -> r.body().read());
            assertEquals(Failure.Kind.TIMEOUT, failure.kind(), failure.toString());
            assertTrue(failure.getMessage().startsWith("Total timeout"), failure.getMessage());
        }
    }

    // --- broken connections and re-sends

    @ParameterizedTest(name = "{0} answered by {1}")
    @CsvSource({"POST, reset", "POST, close", "GET, close"})
    void anUpstreamThatDropsTheConnectionAfterReadingTheRequestIsReportedAndNeverReSent(String method, String how)
            throws Exception {
        try (var raw = new Raw((socket, n, server) -> {
            if (server.readRequest(socket.getInputStream()) == null) return;
            if (how.equals("reset")) Raw.reset(socket);
            else socket.close();
        })) {
            var request = Request.of(method, raw.uri("/once"));
            if (method.equals("POST"))
                request = request.withHeader("Content-Type", "text/plain").withBody("bill me once".getBytes(UTF_8));
            var sent = request;
            var failure = assertThrows(Failure.class, () -> client.send(sent));
            assertEquals(Failure.Kind.BROKEN, failure.kind(), failure.toString());
            assertTrue(failure.requestSent(), "the whole request had been written");
            assertTrue(failure.getMessage().contains(raw.uri("/once").toString()), failure.getMessage());
            assertEquals(1, raw.requests(), "exactly one request reached the upstream");
            assertEquals(1, raw.connections());
            assertEquals(java.util.List.of(), raw.errors());
        }
    }

    @Test
    void aKeptAliveConnectionTheServerClosedWhileIdleIsReplaced() throws Exception {
        try (var raw = new Raw((socket, n, server) -> {
            if (server.readRequest(socket.getInputStream()) == null) return;
            Raw.respond(socket, "answer " + n); // a keep-alive answer, then the server closes anyway
            socket.close();
        })) {
            try (var r = client.send(Request.post(raw.uri("/first"), "text/plain", "1".getBytes(UTF_8)))) {
                assertEquals("answer 1", r.text(100));
            }
            TestServers.await("the client noticed the close", DEADLINE, () -> idle() == 0 && active() == 0);
            try (var r = client.send(Request.post(raw.uri("/second"), "text/plain", "2".getBytes(UTF_8)))) {
                assertEquals("answer 2", r.text(100));
            }
            assertEquals(2, raw.requests(), "each request reached the upstream once");
            assertEquals(2, raw.connections());
            assertEquals(java.util.List.of(), raw.errors());
        }
    }

    // --- cancellation

    /** Waits until {@code thread} is blocked (parked or waiting), i.e. inside the call to be cancelled. */
    private static void awaitBlocked(Thread thread) {
        TestServers.await(thread.getName() + " blocks", DEADLINE, () -> switch (thread.getState()) {
            case WAITING, TIMED_WAITING -> true;
            default -> false;
        });
    }

    @Test
    void aCancelFromAnotherThreadEndsABlockedBodyReadAndReleasesTheConnection() throws Exception {
        var exchange = client.prepare(Request.get(upstream.uri("/sse-slow")));
        var response = exchange.send();
        var events = response.events();
        assertEquals("one", events.next().orElseThrow().data());
        var outcome = new CompletableFuture<Failure>();
        var reader = Thread.ofPlatform().name("sse-reader").start(() -> {
            try {
                outcome.completeExceptionally(new AssertionError("read after cancel returned " + events.next()));
            } catch (Failure f) {
                outcome.complete(f);
            }
        });
        awaitBlocked(reader);
        assertEquals(1, active(), "the streaming connection is in use");
        exchange.cancel();
        var failure = outcome.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertEquals(Failure.Kind.CANCELLED, failure.kind(), failure.toString());
        assertTrue(exchange.cancelled());
        response.close();
        TestServers.await("the cancelled connection is released", DEADLINE, () -> active() == 0);
        try (var r = client.send(Request.get(upstream.uri("/after")))) {
            assertEquals("ok ", r.text(100), "the client works on after a cancel");
        }
    }

    @Test
    void aCancelFromAnotherThreadEndsASendWaitingForHeaders() throws Exception {
        var exchange = client.prepare(Request.get(upstream.uri("/stall")));
        var outcome = new CompletableFuture<Failure>();
        var sender = Thread.ofPlatform().name("sender").start(() -> {
            try {
                exchange.send().close();
                outcome.completeExceptionally(new AssertionError("send after cancel returned"));
            } catch (Failure f) {
                outcome.complete(f);
            }
        });
        TestServers.await("the request reached the upstream", DEADLINE,
                () -> upstream.seen().stream().anyMatch(s -> s.path().equals("/stall")) && exchange.requestSent());
        awaitBlocked(sender);
        exchange.cancel();
        var failure = outcome.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertEquals(Failure.Kind.CANCELLED, failure.kind(), failure.toString());
        assertTrue(failure.requestSent());
        exchange.close();
        TestServers.await("the cancelled connection is released", DEADLINE, () -> active() == 0);
    }

    @Test
    void aCancelBeforeSendSendsNothing() {
        int before = upstream.requests();
        var exchange = client.prepare(Request.post(upstream.uri("/never"), "text/plain", "x".getBytes(UTF_8)));
        exchange.cancel();
        var failure = assertThrows(Failure.class, exchange::send);
        assertEquals(Failure.Kind.CANCELLED, failure.kind());
        assertFalse(failure.requestSent());
        assertFalse(exchange.requestSent());
        exchange.close();
        assertEquals(before, upstream.requests());
    }

    // --- server-sent events

    @Test
    void anEventLineOverTheCapFailsWithLineTooLong() throws Exception {
        try (var r = client.send(Request.get(upstream.uri("/line/1024")).withMaxLineBytes(1024))) {
            var events = r.events();
            assertEquals(1018, events.next().orElseThrow().data().length(), "a line of exactly the cap is read");
            assertEquals("after", events.next().orElseThrow().data());
        }
        try (var r = client.send(Request.get(upstream.uri("/line/1025")).withMaxLineBytes(1024))) {
            var failure = assertThrows(Failure.class, () -> r.events().next());
            assertEquals(Failure.Kind.LINE_TOO_LONG, failure.kind());
            assertTrue(failure.getMessage().contains("1024"), failure.getMessage());
        }
        TestServers.await("the connection is released", DEADLINE, () -> active() == 0);
    }

    // --- the pool

    @Test
    void aThousandSequentialCallsLeaveNoConnectionBehind() throws Exception {
        var target = upstream.uri("/small");
        int connectionsBefore = (int) upstream.connections();
        for (int i = 0; i < 1000; i++) {
            var request = i % 10 == 0 ? Request.post(target, "text/plain", ("call " + i).getBytes(UTF_8))
                    : Request.get(target);
            try (var r = client.send(request)) {
                assertEquals(200, r.status());
                var text = r.text(100);
                assertTrue(text.startsWith("ok"), text);
            }
        }
        assertEquals(0, active(), "every connection is back in the pool");
        assertTrue(idle() <= 2, "idle connections: " + client.poolStats());
        long used = upstream.connections() - connectionsBefore;
        assertTrue(used <= 2, "sequential calls reuse one kept-alive connection, not " + used);
    }

    @Test
    void responsesClosedUnreadAndRedirectHopsDiscardTheirConnectionsWithoutLeaking() throws Exception {
        for (int i = 0; i < 50; i++) {
            try (var r = client.send(Request.get(upstream.uri("/big")))) {
                assertEquals(200, r.status());
                if (i % 2 == 0) {
                    assertEquals("xxxxxxxxxx", r.text(10)); // reads 10 bytes of 256 KiB, then closes
                } else {
                    try (InputStream body = r.body()) {
                        assertEquals('x', body.read());
                    }
                }
            }
        }
        for (int i = 0; i < 10; i++) {
            try (var r = client.send(Request.get(upstream.uri("/redirect-with-body")))) {
                assertEquals("ok ", r.text(100), "the hop's unread body is dropped with its connection");
            }
        }
        TestServers.await("no connection stays active: " + client.poolStats(), DEADLINE, () -> active() == 0);
        assertTrue(idle() <= 2, client.poolStats().toString());
    }

    @Test
    void aClosedClientRefusesNewExchanges() {
        client.close();
        assertThrows(IllegalStateException.class, () -> client.prepare(Request.get(URI.create("http://127.0.0.1:1/"))));
    }
}
