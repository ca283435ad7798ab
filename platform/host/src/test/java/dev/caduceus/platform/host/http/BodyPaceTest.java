package dev.caduceus.platform.host.http;

import static dev.caduceus.platform.host.http.TestServer.KEY;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request body must keep {@link BodyPace}, over real loopback sockets: authenticated clients that
 * trickle their body a byte at a time, or stop half-way, are answered 408 {@code request_timeout} and
 * their connections closed, long before the idle timeout (60 s here, so an answer within {@link #WAIT}
 * can only be the pace's); an upload at 1 KiB/s, four times the minimum, is read to the end.
 */
@Timeout(120)
class BodyPaceTest {
    static final Duration WAIT = Duration.ofSeconds(30);
    static final BodyPace PACE = new BodyPace(256, Duration.ofSeconds(2));

    static TestServer server() {
        return TestServer.builder()
                .idleTimeout(Duration.ofSeconds(60))
                .bodyPace(PACE)
                .route("POST", "/v1/echo", ex -> ex.respond(200,
                        JsonNodeFactory.instance.objectNode().put("chars", ex.body().path("text").asText().length())))
                .start();
    }

    static String head(int length) {
        return "POST /v1/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                + "\r\nContent-Type: application/json\r\nContent-Length: " + length + "\r\n\r\n";
    }

    static String body(int chars) {
        return "{\"text\":\"" + "x".repeat(chars) + "\"}";
    }

    /**
     * Sends {@code head} then {@code body} in pieces of {@code piece} bytes {@code every} apart (all of it, or
     * until the server answers or closes); returns everything the server sent until it closed the connection.
     */
    static String send(TestServer t, String head, String body, int piece, Duration every, boolean stopHalfWay)
            throws Exception {
        try (var socket = new Socket("127.0.0.1", t.server.port())) {
            socket.setSoTimeout((int) Math.max(1, every.toMillis()));
            var out = socket.getOutputStream();
            out.write(head.getBytes(UTF_8));
            var bytes = body.getBytes(UTF_8);
            int sent = 0;
            int stop = stopHalfWay ? bytes.length / 2 : bytes.length;
            var answer = new ByteArrayOutputStream();
            long deadline = System.nanoTime() + WAIT.toNanos();
            var buffer = new byte[4096];
            while (System.nanoTime() < deadline) {
                if (sent < stop) {
                    int n = Math.min(piece, stop - sent);
                    try {
                        out.write(bytes, sent, n);
                        out.flush();
                    } catch (IOException e) {
                        sent = stop; // the server closed the connection under the write: read what it said
                        continue;
                    }
                    sent += n;
                }
                try {
                    int read = socket.getInputStream().read(buffer);
                    if (read == -1) return answer.toString(UTF_8);
                    answer.write(buffer, 0, read);
                } catch (SocketTimeoutException e) {
                    // nothing yet
                } catch (IOException e) {
                    return answer.toString(UTF_8); // reset after the answer
                }
            }
            fail("no answer and no close within " + WAIT + " after " + sent + " of " + bytes.length + " body bytes; got: "
                    + answer.toString(UTF_8));
            return null;
        }
    }

    @Test
    void bodiesTrickledByteByByteAreAnswered408AndTheirConnectionsClosed() throws Exception {
        try (var t = server(); var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            var body = body(2000);
            var tricklers = new ArrayList<Future<String>>();
            for (int i = 0; i < 50; i++)
                tricklers.add(threads.submit((Callable<String>) () -> send(t, head(body.length()), body, 1,
                        Duration.ofMillis(50), false)));
            for (var trickler : tricklers) assertCutWith408(trickler.get());
        }
    }

    @Test
    void aBodyThatStopsHalfWayIsAnswered408AndItsConnectionClosed() throws Exception {
        try (var t = server()) {
            var body = body(2000);
            assertCutWith408(send(t, head(body.length()), body, 500, Duration.ofMillis(50), true));
        }
    }

    @Test
    void anUploadAtOneKibPerSecondIsReadToTheEnd() throws Exception {
        try (var t = server()) {
            var body = body(4000); // about four seconds at 128 bytes every 125 ms
            var answer = send(t, head(body.length()).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"), body, 128,
                    Duration.ofMillis(125), false);
            assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
            assertTrue(answer.endsWith("{\"chars\":4000}"), answer);
        }
    }

    static void assertCutWith408(String answer) {
        assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
        assertTrue(answer.toLowerCase(java.util.Locale.ROOT).contains("connection: close"), answer);
        assertTrue(answer.contains("\"code\":\"request_timeout\""), answer);
        assertEquals(1, answer.split("HTTP/1.1 ", -1).length - 1, "one answer, then the close: " + answer);
    }
}
