package dev.caduceus.platform.host.http;

import static dev.caduceus.platform.host.http.TestServer.KEY;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Slowloris over real loopback sockets: request headers have a deadline however slowly their bytes
 * trickle in, and one client cannot hold more idle connections than the cap; connections handling a
 * request are left alone by both rules.
 */
class SlowClientTest {
    static final Duration WAIT = Duration.ofSeconds(20); // liveness bound of every poll, far above the timeouts

    /** A server whose {@code GET /v1/slow} answers only once {@code release} is counted down. */
    static TestServer server(CountDownLatch release, Duration headerTimeout, int maxIdlePerClient) {
        var ok = JsonNodeFactory.instance.objectNode().put("ok", true);
        return TestServer.builder()
                .idleTimeout(Duration.ofSeconds(60))
                .headerTimeout(headerTimeout)
                .maxIdlePerClient(maxIdlePerClient)
                .route("GET", "/v1/runs", ex -> ex.respond(200, ok))
                .route("GET", "/v1/slow", ex -> {
                    assertTrue(release.await(WAIT.toSeconds(), TimeUnit.SECONDS));
                    ex.respond(200, ok);
                })
                .start();
    }

    static Socket open(TestServer t) throws IOException {
        var socket = new Socket("127.0.0.1", t.server.port());
        socket.setSoTimeout(50);
        return socket;
    }

    static void send(Socket socket, String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(UTF_8));
        socket.getOutputStream().flush();
    }

    /** Whether the server has closed {@code socket}: end of stream or a reset, within one short read. */
    static boolean closedByServer(Socket socket) {
        try {
            return socket.getInputStream().read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    /** Trickles {@code header} one byte per poll, as slowloris does, until the server closes. */
    static void trickleUntilClosed(Socket socket, String header) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        for (int i = 0; System.nanoTime() < deadline; i++) {
            try {
                send(socket, String.valueOf(header.charAt(i % header.length())));
            } catch (IOException e) {
                return; // the write hit a closed connection
            }
            if (closedByServer(socket)) return;
        }
        fail("the server kept a connection with incomplete headers open for " + WAIT);
    }

    static CompletableFuture<String> slowRequest(TestServer t) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return t.raw("GET /v1/slow HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY + "\r\n\r\n", WAIT);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @Test
    void headersTrickledByteByByteAreCutAtTheHeaderDeadline() throws Exception {
        var release = new CountDownLatch(1);
        try (var t = server(release, Duration.ofMillis(500), 0)) {
            var busy = slowRequest(t); // its headers were complete in time: never cut, however long it runs
            try (var socket = open(t)) {
                send(socket, "GET /v1/runs HTTP/1.1\r\nHost: x\r\n");
                trickleUntilClosed(socket, "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaa\r\n");
            }
            try (var socket = open(t)) { // a partial request line, then nothing: closed as well
                send(socket, "GET /v1/ru");
                assertClosedWithin(socket, WAIT);
            }
            release.countDown();
            var answer = busy.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
        }
    }

    @Test
    void theNextRequestOnAKeptAliveConnectionHasTheDeadlineToo() throws Exception {
        try (var t = server(new CountDownLatch(0), Duration.ofMillis(500), 0); var socket = open(t)) {
            socket.setSoTimeout(5000);
            send(socket, "GET /v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY + "\r\n\r\n");
            var buffer = new byte[4096];
            var first = new String(buffer, 0, socket.getInputStream().read(buffer), UTF_8);
            assertTrue(first.startsWith("HTTP/1.1 200"), first);
            socket.setSoTimeout(50);
            assertFalse(closedByServer(socket), "an answered, idle keep-alive connection stays open");
            send(socket, "GET /v1/runs HTTP/1.1\r\n");
            trickleUntilClosed(socket, "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaa\r\n");
        }
    }

    @Test
    void oneClientHoldsAtMostTheCapOfIdleConnections() throws Exception {
        var release = new CountDownLatch(1);
        int cap = 3;
        try (var t = server(release, Duration.ofSeconds(60), cap)) {
            var busy = IntStream.range(0, 5).mapToObj(i -> slowRequest(t)).toList(); // handling: never counted
            var idle = new ArrayList<Socket>();
            try {
                for (int i = 0; i < 8; i++) {
                    var socket = open(t);
                    if (i % 2 == 0) send(socket, "GET /v1/runs HTTP/1.1\r\nHost: x\r\n"); // partial, or nothing at all
                    idle.add(socket);
                }
                var closed = new HashSet<Socket>();
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (idle.size() - closed.size() > cap && System.nanoTime() < deadline) {
                    for (var socket : idle) if (!closed.contains(socket) && closedByServer(socket)) closed.add(socket);
                }
                // Which ones stay is not asserted: the server sees opens this close together in no fixed order.
                assertEquals(cap, idle.size() - closed.size(), "the idle connections beyond the cap are closed");
                // a connection that carries a request is not idle: this one still gets its answer
                var answer = t.raw("GET /v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                        + "\r\nConnection: close\r\n\r\n");
                assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
            } finally {
                for (var socket : idle) socket.close();
            }
            release.countDown();
            for (var request : busy) {
                var answer = request.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
            }
        }
    }

    @Test
    void aBodyThatStopsArrivingIs408AfterTheIdleTimeout() throws Exception {
        var ok = JsonNodeFactory.instance.objectNode().put("ok", true);
        try (var t = TestServer.builder().idleTimeout(Duration.ofMillis(500)).headerTimeout(Duration.ofMillis(500))
                .route("POST", "/v1/echo", ex -> {
                    ex.body();
                    ex.respond(200, ok);
                })
                .start()) {
            var answer = t.raw("POST /v1/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                    + "\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{\"a\":", WAIT);
            var error = MalformedRequestTest.assertError(answer, 408, "request_timeout");
            assertEquals("Request body not received in time.", error.get("message").asText());
        }
    }

    private static void assertClosedWithin(Socket socket, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) if (closedByServer(socket)) return;
        fail("the server kept a connection with an incomplete request line open for " + wait);
    }
}
