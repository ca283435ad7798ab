package dev.caduceus.platform.host.http;

import dev.caduceus.support.stream.EventPump;
import static dev.caduceus.platform.host.http.TestServer.KEY;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Event streams (frames one by one, keepalive, disconnect) and graceful shutdown. */
class SseAndDrainTest {

    /** A subscription fed by the test. */
    static final class QueueSubscription implements RunSubscription {
        final BlockingQueue<JournalEntry> queue = new LinkedBlockingQueue<>();
        volatile boolean finished;
        long seq;

        void emit(RunEvent event) {
            queue.add(new JournalEntry("run_1", ++seq, Instant.now(), event));
        }

        @Override public String runId() { return "run_1"; }

        @Override public Optional<JournalEntry> next(Duration timeout) throws InterruptedException {
            if (finished) return Optional.empty();
            var entry = queue.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (entry != null && entry.event().isTerminal()) finished = true;
            return Optional.ofNullable(entry);
        }

        @Override public boolean finished() { return finished; }

        @Override public void close() { }
    }

    final QueueSubscription subscription = new QueueSubscription();
    final CompletableFuture<EventPump.Result> pumped = new CompletableFuture<>();
    final CompletableFuture<Boolean> goneCallback = new CompletableFuture<>();
    final CompletableFuture<Boolean> writeAfterGoneThrows = new CompletableFuture<>();

    TestServer sseServer() {
        return TestServer.builder().keepalive(1)
                .route("GET", "/v1/runs/{run_id}/events", ex -> {
                    ex.onClientGone(() -> goneCallback.complete(true));
                    var out = ex.openEventStream();
                    var result = new EventPump(Duration.ofSeconds(1)).pump(subscription, (entry, stream) -> {
                        switch (entry.event()) {
                            case RunEvent.TextDelta d -> stream.event(entry.seq(), "delta",
                                    TestServer.MAPPER.createObjectNode().put("text", d.text()));
                            default -> stream.data("[DONE]");
                        }
                    }, out);
                    if (result == EventPump.Result.CLIENT_GONE) {
                        try {
                            out.comment("late");
                            writeAfterGoneThrows.complete(false);
                        } catch (ClientGoneException e) {
                            writeAfterGoneThrows.complete(true);
                        }
                    } else {
                        out.comment("stream closed");
                    }
                    pumped.complete(result);
                })
                .start();
    }

    @Test
    void framesArriveOneByOneBeforeTheStreamEnds() throws Exception {
        try (var t = sseServer()) {
            var response = t.client.send(t.authed("/v1/runs/run_1/events").GET().build(), HttpResponse.BodyHandlers.ofLines());
            assertEquals(200, response.statusCode());
            assertEquals("text/event-stream", response.headers().firstValue("Content-Type").orElse(null));
            assertEquals("no-cache", response.headers().firstValue("Cache-Control").orElse(null));
            assertEquals("no", response.headers().firstValue("X-Accel-Buffering").orElse(null));
            assertEquals("nosniff", response.headers().firstValue("X-Content-Type-Options").orElse(null));
            var lines = response.body().iterator();

            subscription.emit(new RunEvent.TextDelta("hello\nworld"));
            assertEquals("id: 1", lines.next());
            assertEquals("event: delta", lines.next());
            assertEquals("data: {\"text\":\"hello\\nworld\"}", lines.next());
            assertEquals("", lines.next());
            assertTrue(!pumped.isDone(), "the first frame must arrive while the stream is open");

            subscription.emit(new RunEvent.TextDelta("again"));
            assertEquals("id: 2", lines.next());
            lines.next();
            assertEquals("data: {\"text\":\"again\"}", lines.next());
            lines.next();

            subscription.emit(new RunEvent.Completed("done", StopReason.STOP, null, Usage.ZERO));
            assertEquals("data: [DONE]", lines.next());
            assertEquals("", lines.next());
            assertEquals(": stream closed", lines.next());
            assertEquals("", lines.next());
            assertTrue(!lines.hasNext());
            assertEquals(EventPump.Result.FINISHED, pumped.get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void framesAlreadyAtHandGoOutInOneWriteInOrder() throws Exception {
        // A run that produced faster than the stream wrote: the pump writes the backlog once (one
        // HTTP chunk on the wire), not one write per frame, and never holds a frame back.
        for (var text : List.of("a", "b", "c")) subscription.emit(new RunEvent.TextDelta(text));
        subscription.emit(new RunEvent.Completed("done", StopReason.STOP, null, Usage.ZERO));
        try (var t = sseServer()) {
            var answer = t.raw("GET /v1/runs/run_1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY + "\r\n\r\n");
            int bodyStart = answer.indexOf("\r\n\r\n") + 4;
            assertTrue(answer.substring(0, bodyStart).toLowerCase(Locale.ROOT).contains("transfer-encoding: chunked"), answer);
            assertEquals(List.of("""
                    id: 1
                    event: delta
                    data: {"text":"a"}

                    id: 2
                    event: delta
                    data: {"text":"b"}

                    id: 3
                    event: delta
                    data: {"text":"c"}

                    data: [DONE]

                    """, ": stream closed\n\n"), chunks(answer.substring(bodyStart)));
            assertEquals(EventPump.Result.FINISHED, pumped.get(5, TimeUnit.SECONDS));
        }
    }

    /** The chunks of a chunked body (ASCII here, so a chunk's byte size is its length in characters). */
    private static List<String> chunks(String body) {
        var chunks = new ArrayList<String>();
        int at = 0;
        while (true) {
            int lineEnd = body.indexOf("\r\n", at);
            int size = Integer.parseInt(body.substring(at, lineEnd).trim(), 16);
            if (size == 0) return chunks;
            chunks.add(body.substring(lineEnd + 2, lineEnd + 2 + size));
            at = lineEnd + 2 + size + 2;
        }
    }

    @Test
    void aBacklogLargerThanOneBatchArrivesWholeAndInOrder() throws Exception {
        int frames = 2 * SseEventStream.MAX_BATCH_CHARS / 40;
        for (int i = 0; i < frames; i++) subscription.emit(new RunEvent.TextDelta("frame " + i));
        subscription.emit(new RunEvent.Completed("done", StopReason.STOP, null, Usage.ZERO));
        try (var t = sseServer()) {
            var response = t.client.send(t.authed("/v1/runs/run_1/events").GET().build(), HttpResponse.BodyHandlers.ofLines());
            var data = response.body().filter(l -> l.startsWith("data: ")).toList();
            assertEquals(frames + 1, data.size());
            for (int i = 0; i < frames; i++) assertEquals("data: {\"text\":\"frame " + i + "\"}", data.get(i));
            assertEquals("data: [DONE]", data.get(frames));
        }
    }

    @Test
    void keepaliveCommentWhenIdle() throws Exception {
        try (var t = sseServer()) {
            var response = t.client.send(t.authed("/v1/runs/run_1/events").GET().build(), HttpResponse.BodyHandlers.ofLines());
            var lines = response.body().iterator();
            // when it is due is EventPumpTest's (on a ticker); here: it reaches the client as an SSE comment
            assertEquals(": keepalive", lines.next());
            assertEquals("", lines.next());
            subscription.emit(new RunEvent.Interrupted("shutdown"));
            assertEquals("data: [DONE]", lines.next());
        }
    }

    @Test
    void clientDisconnectIsDetected() throws Exception {
        try (var t = sseServer()) {
            try (var socket = new Socket("127.0.0.1", t.server.port())) {
                socket.getOutputStream().write(("GET /v1/runs/run_1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                        + KEY + "\r\n\r\n").getBytes(UTF_8));
                var reader = new BufferedReader(new InputStreamReader(socket.getInputStream(), UTF_8));
                assertTrue(reader.readLine().startsWith("HTTP/1.1 200"));
                subscription.emit(new RunEvent.TextDelta("one"));
                String line;
                do {
                    line = reader.readLine();
                } while (line != null && !line.contains("data: {"));
                assertTrue(line != null && line.contains("\"one\""), String.valueOf(line));
            }
            assertEquals(EventPump.Result.CLIENT_GONE, pumped.get(10, TimeUnit.SECONDS));
            assertTrue(goneCallback.get(5, TimeUnit.SECONDS));
            assertTrue(writeAfterGoneThrows.get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void drainAnswersNewRequestsWith503AndLetsInFlightFinish() throws Exception {
        var entered = new CountDownLatch(1);
        var release = new CountDownLatch(1);
        var t = TestServer.builder()
                .route("GET", "/v1/slow", ex -> {
                    entered.countDown();
                    release.await(10, TimeUnit.SECONDS);
                    ex.respond(200, TestServer.MAPPER.createObjectNode().put("done", true));
                })
                .route("GET", "/v1/fast", ex -> ex.respond(200, TestServer.MAPPER.createObjectNode()))
                .start();
        try {
            var slow = t.client.sendAsync(t.authed("/v1/slow").GET().build(), HttpResponse.BodyHandlers.ofString());
            assertTrue(entered.await(5, TimeUnit.SECONDS));
            var drained = t.server.beginDrain();
            assertTrue(t.server.draining());

            var rejected = t.raw("GET /v1/fast HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY + "\r\nConnection: close\r\n\r\n");
            assertTrue(rejected.startsWith("HTTP/1.1 503"), rejected);
            assertTrue(rejected.contains("\"code\":\"gateway_draining\""), rejected);
            assertTrue(rejected.contains("\"param\":null"), rejected);
            assertTrue(rejected.contains("Retry-After: 1"), rejected);
            assertTrue(rejected.contains("X-Content-Type-Options: nosniff"), rejected);
            assertTrue(!drained.isDone(), "an in-flight request is still running");

            release.countDown();
            var answer = slow.get(5, TimeUnit.SECONDS);
            assertEquals(200, answer.statusCode());
            assertEquals("{\"done\":true}", answer.body());
            drained.get(5, TimeUnit.SECONDS);
        } finally {
            t.close();
        }
        assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", t.server.port()).close());
    }
}
