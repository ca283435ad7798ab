package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.testkit.FakeExchange;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ChatValidationTest {
    private final ChatFixture chat = new ChatFixture();

    private static void assertError(FakeExchange ex, int status, String code, String param) {
        assertEquals(status, ex.status(), () -> String.valueOf(ex.responseBody()));
        var error = ex.responseBody().get("error");
        assertEquals(code, error.get("code").asText(), error::toString);
        if (param == null) assertTrue(error.get("param").isNull(), error::toString);
        else assertEquals(param, error.get("param").asText());
    }

    private FakeExchange userContent(String contentJson) throws Exception {
        return chat.post("{\"messages\":[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"user\",\"content\":"
                + contentJson + "}]}");
    }

    @Test
    void malformedJsonIsInvalidJson() throws Exception {
        assertError(chat.post("{\"messages\":"), 400, "invalid_json", null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "{\"messages\":[]}", "{\"messages\":\"hi\"}", "{\"messages\":{}}", "[1]"})
    void missingEmptyOrNonArrayMessagesAreMissingMessages(String body) throws Exception {
        var ex = chat.post(body);
        assertError(ex, 400, "missing_messages", null);
        assertEquals("Missing or invalid 'messages' field", ex.responseBody().at("/error/message").asText());
    }

    @ParameterizedTest
    @ValueSource(strings = {"file", "input_audio", "refusal", "video"})
    void nonTextNonImagePartsAreUnsupported(String type) throws Exception {
        var ex = userContent("[{\"type\":\" " + type.toUpperCase() + " \"}]");
        assertError(ex, 400, "unsupported_content_type", "messages[1].content");
        assertEquals("Unsupported content part type '" + type + "'. Only text and image_url/input_image parts are supported.",
                ex.responseBody().at("/error/message").asText());
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
        assertEquals("Image parts must include a non-empty image URL.", ex.responseBody().at("/error/message").asText());
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
        var turn = chat.lastRequest().messages().getLast();
        assertEquals(65_536, turn.text().length());
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
        assertEquals("No user message found in messages", ex.responseBody().at("/error/message").asText());
    }

    @ParameterizedTest
    @ValueSource(strings = {"bad id", "a/b", "a..b", "abc\r\nX: y", "é"})
    void invalidSessionIdsAreRejected(String id) throws Exception {
        assertError(chat.post(ChatFixture.USER_HI, "X-Hermes-Session-Id", id), 400, "invalid_session_id", null);
    }

    @Test
    void sessionHeadersOverTheLimitAreTooLong() throws Exception {
        assertError(chat.post(ChatFixture.USER_HI, "X-Hermes-Session-Id", "a".repeat(257)), 400,
                "session_id_too_long", null);
        assertError(chat.post(ChatFixture.USER_HI, "X-Hermes-Session-Key", "k".repeat(257)), 400,
                "session_key_too_long", null);
    }

    @Test
    void sessionKeysWithLineBreaksOrNulAreInvalid() throws Exception {
        assertError(chat.post(ChatFixture.USER_HI, "X-Hermes-Session-Key", "a\nb"), 400, "invalid_session_key", null);
        assertError(chat.post(ChatFixture.USER_HI, "X-Hermes-Session-Key", "a\0b"), 400, "invalid_session_key", null);
    }

    @Test
    void sessionHeadersAreCheckedBeforeTheBody() throws Exception {
        assertError(chat.post("not json", "X-Hermes-Session-Id", "a..b"), 400, "invalid_session_id", null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"high\"", "[]", "3"})
    void modelOptionsMustBeAnObject(String value) throws Exception {
        assertError(chat.post("{\"model_options\":" + value + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"),
                400, "invalid_model_options", "model_options");
    }

    @Test
    void drainingIs503WithRetryHintsBeforeTheBodyIsRead() throws Exception {
        chat.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.DRAINING, "draining"));
        var ex = chat.post("not json");
        assertError(ex, 503, "gateway_draining", null);
        assertEquals("Gateway is draining existing work; retry shortly.", ex.responseBody().at("/error/message").asText());
        assertEquals(Optional.of("1"), ex.responseHeader("Retry-After"));
        assertEquals(Optional.of("1000"), ex.responseHeader("retry-after-ms"));
        assertFalse(ex.responseHeader("x-should-retry").isPresent());
    }

    @Test
    void missingModelIs503ServerErrorThatMustNotBeRetried() throws Exception {
        chat.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.MODEL_NOT_CONFIGURED,
                "No model provider is configured."));
        var ex = chat.post(ChatFixture.USER_HI);
        assertError(ex, 503, "model_not_configured", null);
        assertEquals("server_error", ex.responseBody().at("/error/type").asText());
        assertEquals("No model provider is configured.", ex.responseBody().at("/error/message").asText());
        assertEquals(Optional.of("false"), ex.responseHeader("x-should-retry"));
    }

    @Test
    void atCapacityIs429RateLimitWithRetryHints() throws Exception {
        chat.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.AT_CAPACITY,
                "Too many concurrent runs (max 10)"));
        var ex = chat.post("{}");
        assertError(ex, 429, "rate_limit_exceeded", null);
        assertEquals("rate_limit_error", ex.responseBody().at("/error/type").asText());
        assertEquals("Too many concurrent runs (max 10)", ex.responseBody().at("/error/message").asText());
        assertEquals(Optional.of("1"), ex.responseHeader("Retry-After"));
        assertEquals(Optional.of("1000"), ex.responseHeader("retry-after-ms"));
        assertFalse(ex.responseHeader("x-should-retry").isPresent());
        assertTrue(chat.runs.requests().isEmpty());
    }

    @Test
    void imagePartsKeepTheirUrlAndDetail() throws Exception {
        chat.answers("ok");
        userContent("[\"look\",{\"type\":\"input_text\",\"text\":\"at this\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://x/a.png\",\"detail\":\"low\"}},"
                + "{\"type\":\"input_image\",\"image_url\":\"data:image/png;base64,AAAA\"}]");
        assertEquals(List.of(new ContentPart.Text("look"), new ContentPart.Text("at this"),
                        new ContentPart.ImageUrl("https://x/a.png", "low"),
                        new ContentPart.ImageUrl("data:image/png;base64,AAAA", null)),
                chat.lastRequest().messages().getLast().content());
    }
}
