package dev.caduceus.plugin.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.testkit.Eventually;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The blocking HTTP/1.1 client against a socket server scripted byte for byte. */
class Http1ClientTest {
    private final RawServer server = new RawServer();
    private final Http1Client client = new Http1Client(Duration.ofSeconds(2));
    private final Origin origin = Origin.of(server.uri("/"));

    Http1ClientTest() throws IOException {}

    @AfterEach
    void stop() throws IOException {
        client.close();
        server.close();
    }

    @Test
    void sendsOneWellFormedRequestAndReadsAContentLengthBody() throws Exception {
        var received = new LinkedBlockingQueue<RawServer.Received>();
        server.then(peer -> {
            received.add(peer.read());
            peer.write("HTTP/1.1 201 Created\r\nContent-Length: 5\r\nX-Multi: a\r\nx-multi: b\r\n\r\nhello");
            peer.awaitClose();
        });
        var headers = new LinkedHashMap<String, String>();
        headers.put("Content-Type", "application/json");
        headers.put("Authorization", "Bearer k");
        try (var response = client.send(Http1Request.post(server.uri("/v1/chat?x=1"), headers, "{}".getBytes(UTF_8)))) {
            assertEquals(201, response.status());
            assertEquals(List.of("a", "b"), response.headers().allValues("X-MULTI"), "case-insensitive, all values");
            assertEquals("5", response.headers().firstValue("content-length").orElseThrow());
            assertEquals("hello", new String(response.body().readAllBytes(), UTF_8));
        }
        var request = received.take();
        assertEquals("POST /v1/chat?x=1 HTTP/1.1", request.requestLine());
        assertEquals("127.0.0.1:" + origin.port(), request.headers().get("host"));
        assertEquals("Bearer k", request.headers().get("authorization"));
        assertEquals("2", request.headers().get("content-length"));
        assertEquals("{}", request.body());
        assertEquals(1, client.idleConnections(origin), "a fully read keep-alive response is pooled");
    }

    @Test
    void readsAChunkedBodyWithExtensionsAndTrailersAndKeepsTheConnection() throws Exception {
        server.then(peer -> {
            peer.read();
            peer.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Checksum: abc\r\nX-Other: d\r\n\r\n");
            peer.read();
            peer.ok("again");
            peer.awaitClose();
        });
        assertEquals("hello world", text(post()));
        assertEquals("again", text(post()), "the trailers were consumed: the next response starts cleanly");
        assertEquals(1, server.accepted());
    }

    @Test
    void readsAClosedDelimitedBodyAndDoesNotPoolItsConnection() throws Exception {
        server.then(peer -> {
            peer.read();
            peer.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end");
            peer.close();
        });
        assertEquals("until the end", text(post()));
        assertEquals(0, client.idleConnections(origin));
    }

    @Test
    void skipsInterimResponses() throws Exception {
        server.then(peer -> {
            peer.read();
            peer.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n");
            peer.ok("final");
            peer.awaitClose();
        });
        assertEquals("final", text(post()));
    }

    @Test
    void reusesAKeptAliveConnection() throws Exception {
        server.then(peer -> {
            for (int i = 0; i < 3; i++) {
                peer.read();
                peer.ok("answer " + i);
            }
            peer.awaitClose();
        });
        for (int i = 0; i < 3; i++) assertEquals("answer " + i, text(post()));
        assertEquals(1, server.accepted(), "all three requests arrived on one socket");
    }

    @Test
    void doesNotReuseAConnectionTheServerAskedToClose() throws Exception {
        server.then(peer -> {
            peer.read();
            peer.write("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\none");
            peer.awaitClose();
        }).then(peer -> {
            peer.read();
            peer.ok("two");
            peer.awaitClose();
        });
        assertEquals("one", text(post()));
        assertEquals(0, client.idleConnections(origin));
        assertEquals("two", text(post()));
        assertEquals(2, server.accepted());
    }

    @Test
    void http10ResponsesAreNotReused() throws Exception {
        server.then(peer -> {
            peer.read();
            peer.write("HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nold");
            peer.awaitClose();
        });
        assertEquals("old", text(post()));
        assertEquals(0, client.idleConnections(origin));
    }

    @Test
    void aBodyClosedBeforeItsEndClosesTheConnection() throws Exception {
        var clientClosed = new CountDownLatch(1);
        server.then(peer -> {
            peer.read();
            peer.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789");
            peer.awaitClose();
            clientClosed.countDown();
        }).then(peer -> {
            peer.read();
            peer.ok("fresh");
            peer.awaitClose();
        });
        try (var response = post()) {
            assertEquals('0', response.body().read());
        }
        assertTrue(clientClosed.await(2, TimeUnit.SECONDS), "the half-read connection was closed");
        assertEquals(0, client.idleConnections(origin));
        assertEquals("fresh", text(post()));
        assertEquals(2, server.accepted());
    }

    @Test
    void aPooledConnectionTheServerClosedIsRetriedOnANewOne() throws Exception {
        var firstClosed = new CountDownLatch(1);
        server.then(peer -> {
            peer.read();
            peer.ok("first");
            peer.close(); // an idle timeout on the server's side, while the client holds it in its pool
            firstClosed.countDown();
        }).then(peer -> {
            peer.read();
            peer.ok("second");
            peer.awaitClose();
        });
        assertEquals("first", text(post()));
        assertTrue(firstClosed.await(2, TimeUnit.SECONDS));
        assertEquals(1, client.idleConnections(origin), "the client does not know yet");
        assertEquals("second", text(post()));
        assertEquals(2, server.accepted());
    }

    @Test
    void aConnectionThatDiesAfterTheStatusLineIsNotRetried() throws Exception {
        server.then(peer -> {
            peer.read();
            peer.ok("first");
            peer.read();
            peer.write("HTTP/1.1 200 OK\r\nContent-");
            peer.close();
        }).then(peer -> {
            peer.read();
            peer.ok("must not be asked");
        });
        assertEquals("first", text(post()));
        var e = assertThrows(IOException.class, this::post);
        assertTrue(e.getMessage().contains("header field"), e.getMessage());
        assertEquals(1, server.accepted(), "the request was not sent again");
    }

    @Test
    void aFreshConnectionClosedWithoutAnswerIsAnErrorNotARetry() throws Exception {
        server.then(peer -> {
            peer.read();
            peer.close();
        });
        assertInstanceOf(java.io.EOFException.class, assertThrows(IOException.class, this::post));
        assertEquals(1, server.accepted());
    }

    @Test
    void abortFromAnotherThreadUnblocksAReaderAtOnce() throws Exception {
        server.then(peer -> {
            peer.read();
            peer.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhalf");
            peer.awaitClose(); // and never more
        });
        var exchange = client.exchange(Http1Request.post(server.uri("/"), new LinkedHashMap<>(), new byte[1]));
        var response = exchange.send();
        var reader = new java.util.concurrent.atomic.AtomicReference<Thread>();
        var reading = CompletableFuture.supplyAsync(() -> {
            reader.set(Thread.currentThread());
            var buffer = new byte[100];
            try {
                int n = response.body().readNBytes(buffer, 0, 100);
                return new IOException("read " + n + " bytes without failing");
            } catch (IOException e) {
                return e;
            }
        }, command -> Thread.ofVirtual().start(command));
        Eventually.await(Duration.ofSeconds(5), "the reader is blocked on the socket", () -> {
            var t = reader.get();
            return t != null && t.getState() == Thread.State.WAITING;
        });
        assertFalse(reading.isDone(), "the server sent only half the body");
        exchange.abort();
        var failure = reading.get(5, TimeUnit.SECONDS); // the server never sends more: only the abort ends the read
        assertTrue(failure instanceof java.net.SocketException, failure.toString());
        exchange.close();
        assertEquals(0, client.idleConnections(origin));
    }

    @Test
    void anAbortBeforeSendingFailsTheSend() throws Exception {
        var exchange = client.exchange(Http1Request.post(server.uri("/"), new LinkedHashMap<>(), new byte[1]));
        exchange.abort();
        assertEquals("aborted", assertThrows(IOException.class, exchange::send).getMessage());
    }

    @Test
    void connectingToAnAddressThatDoesNotAnswerTimesOut() throws Exception {
        // A listener whose accept queue is full: Linux drops further SYNs, so a connect hangs.
        try (var full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            var fillers = new ArrayList<Socket>();
            try {
                var address = new InetSocketAddress(full.getInetAddress(), full.getLocalPort());
                for (int i = 0; i < 16; i++) {
                    var s = new Socket();
                    fillers.add(s);
                    try {
                        s.connect(address, 200);
                    } catch (SocketTimeoutException e) {
                        break; // the queue is full
                    }
                }
                try (var quick = new Http1Client(Duration.ofMillis(300))) {
                    var uri = URI.create("http://127.0.0.1:" + full.getLocalPort() + "/");
                    assertThrows(SocketTimeoutException.class,
                            () -> quick.send(Http1Request.post(uri, new LinkedHashMap<>(), new byte[0])));
                }
            } finally {
                for (var s : fillers) s.close();
            }
        }
    }

    @Test
    void aMalformedStatusLineIsAClearError() throws Exception {
        server.then(peer -> {
            peer.read();
            peer.write("SSH-2.0-OpenSSH_9.6\r\n\r\n");
            peer.awaitClose();
        });
        var e = assertThrows(IOException.class, this::post);
        assertEquals("Malformed HTTP status line from upstream: SSH-2.0-OpenSSH_9.6", e.getMessage());
        assertEquals(0, client.idleConnections(origin));
    }

    @Test
    void anAbsurdlyLargeHeadIsRejected() throws Exception {
        server.then(peer -> {
            peer.read();
            peer.write("HTTP/1.1 200 OK\r\nX-Big: " + "a".repeat(ResponseHead.MAX_LINE + 10) + "\r\n\r\n");
            peer.awaitClose();
        });
        var e = assertThrows(IOException.class, this::post);
        assertTrue(e.getMessage().contains("longer than"), e.getMessage());
    }

    @Test
    void aTruncatedChunkedBodyIsAnErrorNotAnEnd() throws Exception {
        server.then(peer -> {
            peer.read();
            peer.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel");
            peer.close();
        });
        try (var response = post()) {
            assertThrows(java.io.EOFException.class, () -> response.body().readAllBytes());
        }
        assertEquals(0, client.idleConnections(origin));
    }

    private Http1Response post() throws IOException {
        var headers = new LinkedHashMap<String, String>();
        headers.put("Content-Type", "application/json");
        return client.send(Http1Request.post(server.uri("/v1/chat/completions"), headers, "{}".getBytes(UTF_8)));
    }

    private static String text(Http1Response response) throws IOException {
        try (var body = response.body()) {
            return new String(body.readAllBytes(), UTF_8);
        }
    }
}
