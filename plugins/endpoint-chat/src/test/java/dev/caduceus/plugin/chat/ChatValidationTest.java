package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Chat request validation and admission on the real host, over HTTP. The host allows one run at a
 * time ({@code server.max_concurrent_runs} 1) so that a held run puts it at capacity. Header values
 * HTTP/1.1 cannot carry (line breaks, NUL) are {@link SessionHeadersTest}'s.
 */
class ChatValidationTest {
    private static ChatHost chat;

    @BeforeAll
    static void boot() {
        chat = ChatHost.start("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "1");
    }

    @AfterAll
    static void shutDown() {
        if (chat != null) chat.close();
    }

    @BeforeEach
    void reset() {
        chat.reset();
    }

    private static void assertError(HostClient.Response ex, int status, String code, String param) {
        assertEquals(status, ex.status(), ex::body);
        var error = ex.error();
        assertEquals(code, error.get("code").asText(), error::toString);
        if (param == null) assertTrue(error.get("param").isNull(), error::toString);
        else assertEquals(param, error.get("param").asText());
    }

    private HostClient.Response userContent(String contentJson) {
        return chat.post("{\"messages\":[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"user\",\"content\":"
                + contentJson + "}]}");
    }

    @Test
    void malformedJsonIsInvalidJson() {
        assertError(chat.post("{\"messages\":"), 400, "invalid_json", null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "{\"messages\":[]}", "{\"messages\":\"hi\"}", "{\"messages\":{}}", "[1]"})
    void missingEmptyOrNonArrayMessagesAreMissingMessages(String body) throws Exception {
        var ex = chat.post(body);
        assertError(ex, 400, "missing_messages", null);
        assertEquals("Missing or invalid 'messages' field", ex.json().at("/error/message").asText());
    }

    @ParameterizedTest
    @ValueSource(strings = {"input_audio", "refusal", "video"})
    void nonTextNonImagePartsAreUnsupported(String type) throws Exception {
        var ex = userContent("[{\"type\":\" " + type.toUpperCase() + " \"}]");
        assertError(ex, 400, "unsupported_content_type", "messages[1].content");
        assertEquals("Unsupported content part type '" + type + "'. Only text, image_url/input_image and file/input_file parts are supported.",
                ex.json().at("/error/message").asText());
    }

    @ParameterizedTest
    @ValueSource(strings = {"data:text/plain;base64,aGk=", "data:image/png;base64"})
    void nonImageOrCommaLessDataUrlsAreUnsupported(String url) throws Exception {
        assertError(userContent("[{\"type\":\"image_url\",\"image_url\":{\"url\":\"" + url + "\"}}]"), 400,
                "unsupported_content_type", "messages[1].content");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ftp://x/y.png", "file:///etc/passwd", "javascript:alert(1)"})
    void otherUrlSchemesAreInvalidImageUrls(String url) throws Exception {
        assertError(userContent("[{\"type\":\"input_image\",\"image_url\":\"" + url + "\"}]"), 400,
                "invalid_image_url", "messages[1].content");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"type\":\"image_url\",\"image_url\":{\"url\":\"  \"}}", "{\"type\":\"image_url\"}",
            "{\"type\":\"input_image\",\"image_url\":\"\"}"})
    void blankImageUrlIsInvalidImageUrl(String part) throws Exception {
        var ex = userContent("[" + part + "]");
        assertError(ex, 400, "invalid_image_url", "messages[1].content");
        assertEquals("Image parts must include a non-empty image URL.", ex.json().at("/error/message").asText());
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"url\":\"https://x/a.png\",\"detail\":5}", "{\"url\":\"https://x/a.png\",\"detail\":\"\"}"})
    void badDetailIsInvalidContentPart(String imageUrl) throws Exception {
        assertError(userContent("[{\"type\":\"image_url\",\"image_url\":" + imageUrl + "}]"), 400,
                "invalid_content_part", "messages[1].content");
    }

    @Test
    void oversizedTextIsCutNotRejected() throws Exception {
        chat.answers("ok");
        var ex = userContent("\"" + "a".repeat(70_000) + "\"");
        assertEquals(200, ex.status());
        var messages = chat.lastModelRequest().path("messages");
        assertEquals(65_536, messages.get(messages.size() - 1).path("content").asText().length());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"messages\":[{\"role\":\"system\",\"content\":\"only system\"}]}",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"   \"}]}",
            "{\"messages\":[{\"role\":\"tool\",\"content\":\"x\",\"tool_call_id\":\"c\"}]}",
            "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"\"}]}]}"})
    void noVisibleTurnInputIsNoUserMessage(String body) throws Exception {
        var ex = chat.post(body);
        assertError(ex, 400, "no_user_message", null);
        assertEquals("No user message found in messages", ex.json().at("/error/message").asText());
    }

    @ParameterizedTest
    @ValueSource(strings = {"bad id", "a/b", "a..b", "a;b"})
    void invalidSessionIdsAreRejected(String id) {
        assertError(chat.post(ChatHost.USER_HI, "X-Hermes-Session-Id", id), 400, "invalid_session_id", null);
    }

    @Test
    void sessionHeadersOverTheLimitAreTooLong() {
        assertError(chat.post(ChatHost.USER_HI, "X-Hermes-Session-Id", "a".repeat(257)), 400,
                "session_id_too_long", null);
        assertError(chat.post(ChatHost.USER_HI, "X-Hermes-Session-Key", "k".repeat(257)), 400,
                "session_key_too_long", null);
    }

    @Test
    void drainingIs503WithRetryHintsBeforeTheBodyIsRead() throws Exception {
        var ex = ChatHost.start().answerWhileDraining("not json");
        var error = ChatHost.JSON.readTree(ex.body()).path("error");
        assertEquals("gateway_draining", error.path("code").asText(), ex.body());
        assertEquals("Gateway is draining existing work; retry shortly.", error.path("message").asText());
        assertEquals(Optional.of("1"), ex.headers().firstValue("Retry-After"));
        assertEquals(Optional.of("1000"), ex.headers().firstValue("retry-after-ms"));
        assertFalse(ex.headers().firstValue("x-should-retry").isPresent());
    }

    @Test
    void missingModelIs503ServerErrorThatMustNotBeRetried() {
        try (var host = TestHost.builder().plugins("endpoint-chat", "provider-openai").start()) { // no model configured
            var ex = host.http().post(ChatHost.PATH, ChatHost.USER_HI);
            assertError(ex, 503, "model_not_configured", null);
            assertEquals("server_error", ex.json().at("/error/type").asText());
            assertFalse(ex.json().at("/error/message").asText().isBlank());
            assertEquals(Optional.of("false"), ex.header("x-should-retry"));
        }
    }

    @Test
    void atCapacityIs429RateLimitWithRetryHintsBeforeTheBodyIsRead() throws Exception {
        var held = new HeldTurn(Turn.text("busy"));
        chat.upstream.enqueue(held);
        var busy = Thread.ofVirtual().start(() -> chat.post(ChatHost.USER_HI));
        try {
            held.awaitArrival();
            int before = chat.modelCalls();
            var ex = chat.post("{}");
            assertError(ex, 429, "rate_limit_exceeded", null);
            assertEquals("rate_limit_error", ex.json().at("/error/type").asText());
            assertTrue(ex.json().at("/error/message").asText().startsWith("Too many concurrent runs"), ex.body());
            assertEquals(Optional.of("1"), ex.header("Retry-After"));
            assertEquals(Optional.of("1000"), ex.header("retry-after-ms"));
            assertFalse(ex.header("x-should-retry").isPresent());
            assertEquals(before, chat.modelCalls(), "no run started");
        } finally {
            held.release();
            busy.join();
        }
    }

    @Test
    void imagePartsKeepTheirUrlAndDetail() throws Exception {
        chat.answers("ok");
        userContent("[\"look\",{\"type\":\"input_text\",\"text\":\"at this\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://x/a.png\",\"detail\":\"low\"}},"
                + "{\"type\":\"input_image\",\"image_url\":\"data:image/png;base64,AAAA\"}]");
        var messages = chat.lastModelRequest().path("messages");
        assertEquals("[{\"type\":\"text\",\"text\":\"look\"},{\"type\":\"text\",\"text\":\"at this\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://x/a.png\",\"detail\":\"low\"}},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,AAAA\"}}]",
                messages.get(messages.size() - 1).path("content").toString());
    }
}
