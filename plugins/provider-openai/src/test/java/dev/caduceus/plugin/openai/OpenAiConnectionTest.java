package dev.caduceus.plugin.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.model.ModelException;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How the provider uses its connections, seen from a socket server scripted byte for byte. */
class OpenAiConnectionTest {
    private static final String SSE_HEAD = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n";

    private final RawServer server = new RawServer();
    private final OpenAiProvider provider = new OpenAiProvider(Fixtures.settings(server.uri("/v1").toString(), null,
            true));

    OpenAiConnectionTest() throws IOException {}

    @AfterEach
    void stop() throws IOException {
        provider.close();
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
        for (int i = 0; i < 2; i++) assertEquals(java.util.List.of("hi"), Fixtures.texts(Fixtures.run(provider,
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
        assertEquals(java.util.List.of("hi"), assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
                () -> Fixtures.texts(Fixtures.run(provider, Fixtures.request(true)))));
    }

    @Test
    void aGarbledAnswerIsATransportErrorNamingIt() {
        server.then(peer -> {
            peer.read();
            peer.write("garbage\r\n\r\n");
            peer.awaitClose();
        });
        var e = org.junit.jupiter.api.Assertions.assertThrows(ModelException.class,
                () -> Fixtures.run(provider, Fixtures.request(true)));
        assertTrue(e.retryable());
        assertEquals("Upstream connection failed: Malformed HTTP status line from upstream: garbage", e.getMessage());
    }

    @Test
    void anApiKeyWithALineBreakIsRefusedBeforeAnythingIsSent() throws Exception {
        try (var broken = new OpenAiProvider(Fixtures.settings(server.uri("/v1").toString(), "sk-1\r\nX-Evil: 1",
                true))) {
            var e = org.junit.jupiter.api.Assertions.assertThrows(ModelException.class,
                    () -> Fixtures.run(broken, Fixtures.request(true)));
            assertFalse(e.retryable());
            assertEquals("Cannot build the upstream request: Invalid value for HTTP header Authorization",
                    e.getMessage());
        }
        assertEquals(0, server.accepted());
    }

    private static String chunk(String data) {
        return Integer.toHexString(data.length()) + "\r\n" + data + "\r\n";
    }
}
