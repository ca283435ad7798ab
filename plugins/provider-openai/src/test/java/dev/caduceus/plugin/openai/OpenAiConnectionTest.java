package dev.caduceus.plugin.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.platform.testkit.Eventually;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How the provider uses its connections, seen from a socket server scripted byte for byte. */
class OpenAiConnectionTest {
    private static final String SSE_HEAD = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n";
    private static final String COMPLETION = "{\"choices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}";

    private final RawServer server = new RawServer();
    private final OutboundClient outbound = Fixtures.outbound();
    private final OpenAiProvider provider = new OpenAiProvider(Fixtures.settings(server.uri("/v1").toString(), null,
            true), outbound);

    OpenAiConnectionTest() throws IOException {}

    @AfterEach
    void stop() throws IOException {
        provider.close();
        outbound.close();
        server.close();
    }

    @Test
    void aStreamEndedByDoneLeavesItsConnectionReusable() throws Exception {
        server.then(peer -> {
            for (int i = 0; i < 2; i++) {
                var request = peer.read();
                assertEquals("text/event-stream", request.headers().get("accept"));
                peer.write(SSE_HEAD + chunk("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"));
                peer.write(chunk("data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"));
                peer.write(chunk("data: [DONE]\n\n"));
                peer.write("0\r\n\r\n"); // the end of the response: its own write, after [DONE]
            }
            peer.awaitClose();
        });
        for (int i = 0; i < 2; i++) assertEquals(List.of("hi"), Fixtures.texts(Fixtures.run(provider,
                Fixtures.request(true))));
        assertEquals(1, server.accepted(), "the second call reused the first call's connection");
    }

    @Test
    void aServerThatHoldsTheStreamOpenAfterDoneCostsOnlyTheConnection() throws Exception {
        server.then(peer -> {
            peer.read();
            peer.write(SSE_HEAD + chunk("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}"
                    + "\n\ndata: [DONE]\n\n"));
            peer.awaitClose(); // never ends the response
        });
        // the server never ends the response: returning at all means [DONE] ended the call
        assertEquals(List.of("hi"), assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> Fixtures.texts(Fixtures.run(provider, Fixtures.request(true)))));
    }

    @Test
    void aGarbledAnswerIsARetryableTransportError() {
        server.then(peer -> {
            peer.read();
            peer.write("garbage\r\n\r\n");
            peer.awaitClose();
        });
        var e = assertThrows(ModelException.class, () -> Fixtures.run(provider, Fixtures.request(true)));
        assertTrue(e.retryable());
        assertTrue(e.getMessage().startsWith("Upstream connection failed: "), e.getMessage());
        assertEquals(1, server.requests());
    }

    @Test
    void anApiKeyWithALineBreakIsRefusedBeforeAnythingIsSent() throws Exception {
        try (var broken = new OpenAiProvider(Fixtures.settings(server.uri("/v1").toString(), "sk-1\r\nX-Evil: 1",
                true), outbound)) {
            var e = assertThrows(ModelException.class, () -> Fixtures.run(broken, Fixtures.request(true)));
            assertFalse(e.retryable());
            assertEquals("Cannot build the upstream request: header Authorization has a line break or is empty",
                    e.getMessage());
        }
        assertEquals(0, server.accepted());
    }

    @Test
    void gzipEncodedAnswersAreDecodedStreamedOrNot() throws Exception {
        var sse = gzip("data: {\"choices\":[{\"delta\":{\"content\":\"packed\"},\"finish_reason\":\"stop\"}]}\n\n"
                + "data: [DONE]\n\n");
        var json = gzip(COMPLETION);
        var encodings = new java.util.concurrent.CopyOnWriteArrayList<String>();
        server.then(peer -> {
            encodings.add(peer.read().headers().get("accept-encoding"));
            peer.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: "
                    + json.length + "\r\n\r\n");
            peer.write(json);
            encodings.add(peer.read().headers().get("accept-encoding"));
            peer.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(sse.length) + "\r\n");
            peer.write(sse);
            peer.write("\r\n0\r\n\r\n");
            peer.awaitClose();
        });
        assertEquals(List.of("hi"), Fixtures.texts(Fixtures.run(provider, Fixtures.request(false))));
        assertEquals(List.of("packed"), Fixtures.texts(Fixtures.run(provider, Fixtures.request(true))));
        for (var accepted : encodings) assertTrue(accepted.contains("gzip"), accepted);
        assertEquals(1, server.accepted(), "both answers were read to their end: one connection");
    }

    @Test
    void aRedirectOfThePostIsAClearErrorNamingItsLocationAndIsNotFollowed() {
        RawServer.Script redirect = peer -> {
            while (peer.read() != null)
                peer.write("HTTP/1.1 307 Temporary Redirect\r\nLocation: http://elsewhere.example/v1/chat/completions"
                        + "\r\nContent-Length: 0\r\n\r\n");
        };
        server.then(redirect).then(redirect);
        int sent = 0;
        for (boolean stream : new boolean[] {true, false}) {
            var e = assertThrows(ModelException.class, () -> Fixtures.run(provider, Fixtures.request(stream)));
            assertFalse(e.retryable(), "another attempt gets the same redirect");
            assertTrue(e.getMessage().startsWith("Upstream model redirected the call"), e.getMessage());
            assertTrue(e.getMessage().contains("307") && e.getMessage().contains(
                    "Location: http://elsewhere.example/v1/chat/completions"), e.getMessage());
            assertEquals(++sent, server.requests(), "the POST went out once, and nowhere else");
        }
    }

    @Test
    void aResetAfterTheWholeRequestIsReportedAndTheRequestIsNeverSentAgain() throws Exception {
        server.then(peer -> {
            peer.read();
            peer.ok(COMPLETION);
            peer.read(); // the second call, on the kept connection: read it all, then reset
            peer.reset();
        }).then(peer -> {
            peer.read();
            peer.ok(COMPLETION); // a re-sent request would get this answer
        });
        assertEquals(List.of("hi"), Fixtures.texts(Fixtures.run(provider, Fixtures.request(false))));
        var e = assertThrows(ModelException.class, () -> Fixtures.run(provider, Fixtures.request(false)));
        assertTrue(e.getMessage().startsWith("Upstream connection failed"), e.getMessage());
        assertTrue(e.retryable(), "nothing was emitted: the agent loop decides");
        assertEquals(2, server.requests(), "the second request reached the server once, and was not re-sent");
        assertEquals(1, server.accepted());
    }

    @Test
    void aConnectionTheServerClosedWhileIdleIsNotUsedAgain() throws Exception {
        var firstClosed = new CountDownLatch(1);
        server.then(peer -> {
            peer.read();
            peer.ok(COMPLETION);
            peer.close(); // an idle timeout on the server's side, while the client holds it in its pool
            firstClosed.countDown();
        }).then(peer -> {
            peer.read();
            peer.ok(COMPLETION);
            peer.awaitClose();
        });
        assertEquals(List.of("hi"), Fixtures.texts(Fixtures.run(provider, Fixtures.request(false))));
        assertTrue(firstClosed.await(5, TimeUnit.SECONDS));
        Eventually.await(Duration.ofSeconds(5), "the client dropped the closed connection",
                () -> Fixtures.connections(outbound) == 0);
        assertEquals(List.of("hi"), Fixtures.texts(Fixtures.run(provider, Fixtures.request(false))));
        assertEquals(2, server.accepted());
    }

    @Test
    void anUpstreamThatFallsSilentTimesOutOnTheIdleLimit() throws Exception {
        var settings = new ModelSettings(server.uri("/v1").toString(), null, "m", Duration.ofSeconds(30),
                Duration.ofSeconds(1), dev.caduceus.spi.outbound.OutboundHttp.Protocol.AUTO,
                dev.caduceus.spi.outbound.OutboundHttp.Tls.DEFAULT, null, true, false, null);
        server.then(peer -> {
            peer.read();
            peer.awaitClose(); // never answers
        }).then(peer -> {
            peer.read();
            peer.write(SSE_HEAD + chunk("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"));
            peer.awaitClose(); // and nothing more
        });
        try (var quiet = new OpenAiProvider(settings, outbound)) {
            var before = assertThrows(ModelException.class, () -> Fixtures.run(quiet, Fixtures.request(true)));
            assertEquals("Upstream model timed out after 1 s without sending anything", before.getMessage());
            assertTrue(before.retryable(), "nothing was emitted");
            var seen = new java.util.ArrayList<ModelEvent>();
            var during = assertThrows(ModelException.class, () -> quiet.stream(Fixtures.request(true), seen::add,
                    Fixtures.NEVER));
            assertEquals("Upstream model timed out after 1 s without sending anything", during.getMessage());
            assertFalse(during.retryable(), "text was already emitted");
            assertEquals(List.of("hi"), Fixtures.texts(seen));
        }
    }

    @Test
    void aStreamLineLongerThanTheCapIsAClearErrorNotRetried() {
        server.then(peer -> {
            peer.read();
            peer.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\ndata: ");
            var block = "a".repeat(64 * 1024).getBytes(UTF_8);
            for (int i = 0; i < 17; i++) peer.write(block); // 1 MiB and more, no line end
            peer.awaitClose();
        });
        var e = assertThrows(ModelException.class, () -> Fixtures.run(provider, Fixtures.request(true)));
        assertFalse(e.retryable());
        assertEquals("Upstream sent a stream line longer than 1 MiB", e.getMessage());
    }

    private static String chunk(String data) {
        return Integer.toHexString(data.length()) + "\r\n" + data + "\r\n";
    }

    private static byte[] gzip(String text) throws IOException {
        var bytes = new ByteArrayOutputStream();
        try (var out = new GZIPOutputStream(bytes)) {
            out.write(text.getBytes(UTF_8));
        }
        return bytes.toByteArray();
    }
}
