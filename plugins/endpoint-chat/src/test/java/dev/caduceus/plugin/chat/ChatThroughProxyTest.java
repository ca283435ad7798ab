package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.Tinyproxy;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The model upstream behind a real forward proxy named the way a company network names it
 * ({@code HTTP_PROXY}, as {@code HTTPS_PROXY} for an https upstream): the whole server (boot reading
 * the environment, the host's outbound client, the provider) sends its calls through the proxy, and
 * {@code NO_PROXY} sends them direct. The upstream tells a proxied request by tinyproxy's
 * {@code Via} header.
 */
class ChatThroughProxyTest {
    @TempDir
    static Path dir;
    private static Tinyproxy proxy;

    @BeforeAll
    static void startProxy() throws Exception {
        proxy = Tinyproxy.start(dir);
    }

    @AfterAll
    static void stopProxy() throws Exception {
        proxy.close();
    }

    @Test
    void chatTurnsReachTheUpstreamThroughTheProxy() {
        try (var chat = ChatHost.start("HTTP_PROXY", proxy.url())) {
            chat.upstream.enqueue(Turn.text("through the proxy"), Turn.textChunks("streamed through it"));
            var plain = chat.post(ChatHost.USER_HI);
            assertEquals(200, plain.status(), plain.body());
            assertEquals("through the proxy", plain.json().at("/choices/0/message/content").asText());
            var streamed = chat.post("{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
            assertEquals(200, streamed.status(), streamed.body());
            assertTrue(streamed.body().contains("streamed through it") && streamed.body().contains("[DONE]"),
                    streamed.body());
            var requests = chat.upstream.chatRequests();
            assertEquals(2, requests.size());
            for (var request : requests) {
                var via = request.headers().get("via");
                assertTrue(via != null && via.contains("tinyproxy"), "proxied: " + request.headers());
            }
        }
    }

    @Test
    void noProxySendsThemDirect() {
        try (var chat = ChatHost.start("HTTP_PROXY", proxy.url(), "NO_PROXY", "localhost,127.0.0.1")) {
            chat.upstream.enqueue(Turn.text("direct"));
            var answer = chat.post(ChatHost.USER_HI);
            assertEquals(200, answer.status(), answer.body());
            assertNull(chat.upstream.chatRequests().get(0).headers().get("via"));
            assertFalse(proxy.log().contains(":" + chat.upstream.port() + "/v1/chat/completions"), proxy.log());
        }
    }
}
