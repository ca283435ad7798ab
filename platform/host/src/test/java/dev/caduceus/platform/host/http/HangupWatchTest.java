package dev.caduceus.platform.host.http;

import static dev.caduceus.platform.host.http.TestServer.KEY;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A handler that works without touching the connection (a tool running, the model thinking) learns
 * that the client hung up from {@link HangupWatch}, not at its next write; kept-alive and pipelined
 * connections and the idle timeout still behave.
 */
class HangupWatchTest {
    private static final long WAIT_SECONDS = 10;

    /** A handler that reads the body, asks to hear of a hang-up, says it is working, and waits. */
    private static final class Worker {
        final CountDownLatch working = new CountDownLatch(1);
        final CountDownLatch gone = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger calls = new AtomicInteger();
        /** Set when the first call's watch ended without a hang-up (it took a pipelined request). */
        final CountDownLatch watchEnded = new CountDownLatch(1);
        private final Duration work;

        /** @param work how long the handler works when nobody releases it or hangs up */
        Worker(Duration work) {
            this.work = work;
        }

        TestServer.Builder routes(TestServer.Builder builder) {
            return builder
                    .route("POST", "/work", ex -> {
                        ex.body();
                        work(ex);
                    })
                    .route("GET", "/work", this::work);
        }

        private void work(dev.caduceus.spi.http.HttpExchange ex) throws InterruptedException {
            int call = calls.incrementAndGet();
            ex.onClientGone(gone::countDown);
            working.countDown();
            // The work: ends when released, when the client is gone, or after `work`.
            long deadline = System.nanoTime() + work.toNanos();
            while (System.nanoTime() < deadline && gone.getCount() > 0) {
                if (release.await(20, TimeUnit.MILLISECONDS)) break;
                if (call == 1 && !((InboundExchange) ex).watchingHangups()) {
                    watchEnded.countDown();
                    break;
                }
            }
            ex.respond(200, TestServer.MAPPER.createObjectNode().put("call", call));
        }
    }

    private static String post(String body) {
        return "POST /work HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    private static String get() {
        return "GET /work HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY + "\r\n\r\n";
    }

    @Test
    void aClientThatClosesWhileAPostHandlerWorksIsNoticedAtOnce() throws Exception {
        hangUpDuring(post("{\"a\":1}"));
    }

    @Test
    void aClientThatClosesWhileAGetHandlerWorksIsNoticedAtOnce() throws Exception {
        hangUpDuring(get());
    }

    @Test
    void aChunkedBodyReadToItsEndIsWatchedToo() throws Exception {
        hangUpDuring("POST /work HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{\"a\":1}\r\n0\r\n\r\n");
    }

    private void hangUpDuring(String request) throws Exception {
        var worker = new Worker(Duration.ofSeconds(60));
        try (var server = worker.routes(TestServer.builder()).start()) {
            try (var socket = new Socket("127.0.0.1", server.port())) {
                socket.getOutputStream().write(request.getBytes(UTF_8));
                socket.getOutputStream().flush();
                assertTrue(worker.working.await(WAIT_SECONDS, TimeUnit.SECONDS), "the handler started");
            } // hangs up while the handler works, never writing
            assertTrue(worker.gone.await(WAIT_SECONDS, TimeUnit.SECONDS),
                    "the handler heard of the hang-up while it wrote nothing");
        }
    }

    @Test
    void anIdleTimeoutDoesNotCutAWatchedHandlerThatOutlivesIt() throws Exception {
        // 4.5 idle timeouts: Jetty checks a silent connection every timeout, and a check that fires as the answer
        // is being written fails that write (a whole multiple of the timeout made the answer race a check).
        var worker = new Worker(Duration.ofMillis(1350));
        try (var server = worker.routes(TestServer.builder().idleTimeout(Duration.ofMillis(300))).start()) {
            var response = server.send(server.authed("/work").POST(HttpRequest.BodyPublishers.ofString("{}")).build());
            assertEquals(200, response.statusCode(), response.body());
            assertEquals(1, TestServer.json(response).path("call").asInt());
            assertEquals(1, worker.gone.getCount(), "a silent connection is not a client gone");
        }
    }

    @Test
    void aKeptAliveConnectionCarriesTheNextRequestAfterAWatchedOne() throws Exception {
        var worker = new Worker(Duration.ofSeconds(60));
        worker.release.countDown(); // answers at once: the watch is armed and stopped within the request
        try (var server = worker.routes(TestServer.builder()).start()) {
            var answers = server.rawSequence(post("{}"), get(), post("{\"b\":2}"));
            assertEquals(3, answers.size());
            for (int i = 0; i < 3; i++) {
                assertTrue(answers.get(i).startsWith("HTTP/1.1 200"), answers.get(i));
                assertTrue(answers.get(i).contains("{\"call\":" + (i + 1) + "}"), answers.get(i));
            }
            assertEquals(1, worker.gone.getCount());
        }
    }

    @Test
    void aRequestPipelinedWhileTheFirstIsWorkedOnIsHandedBackAndAnsweredAfterIt() throws Exception {
        var worker = new Worker(Duration.ofSeconds(WAIT_SECONDS));
        try (var server = worker.routes(TestServer.builder()).start();
             var socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            var out = socket.getOutputStream();
            out.write(post("{\"first\":true}").getBytes(UTF_8));
            out.flush();
            assertTrue(worker.working.await(WAIT_SECONDS, TimeUnit.SECONDS));
            out.write(get().getBytes(UTF_8)); // reaches the first request's watch
            out.flush();
            assertTrue(worker.watchEnded.await(WAIT_SECONDS, TimeUnit.SECONDS),
                    "the watch took the pipelined bytes and ended");
            worker.release.countDown(); // the second request answers at once
            var answers = readAnswers(socket.getInputStream(), 2);
            assertTrue(answers.get(0).contains("{\"call\":1}"), answers.toString());
            assertTrue(answers.get(1).contains("{\"call\":2}"), "the handed-back request was parsed: " + answers);
            assertEquals(1, worker.gone.getCount(), "a pipelining client is not gone");
        }
    }

    /** Reads {@code count} answers with a Content-Length body each, in order. */
    private static java.util.List<String> readAnswers(InputStream in, int count) throws Exception {
        var answers = new java.util.ArrayList<String>();
        var buffer = new ByteArrayOutputStream();
        var chunk = new byte[4096];
        while (answers.size() < count) {
            int n;
            try {
                n = in.read(chunk);
            } catch (java.net.SocketTimeoutException e) {
                throw new AssertionError("answers so far: " + answers + ", then: " + buffer.toString(UTF_8), e);
            }
            if (n < 0) break;
            buffer.write(chunk, 0, n);
            for (String text; (text = buffer.toString(UTF_8)).contains("\r\n\r\n"); ) {
                int end = text.indexOf("\r\n\r\n");
                var m = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(text.substring(0, end));
                if (!m.find()) throw new AssertionError("no Content-Length in " + text);
                int total = end + 4 + Integer.parseInt(m.group(1));
                var bytes = buffer.toByteArray();
                if (bytes.length < total) break;
                answers.add(new String(bytes, 0, total, UTF_8));
                buffer.reset();
                buffer.write(bytes, total, bytes.length - total);
            }
        }
        return answers;
    }
}
