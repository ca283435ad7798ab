package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.testkit.FakeExchange;
import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResponsesValidationTest {
    @TempDir Path dir;
    TestDatabase db;
    ResponsesFixture api;

    @BeforeEach
    void setUp() {
        db = TestDatabase.open(dir, "endpoint-responses");
        api = new ResponsesFixture(db).answers("ok");
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    private static void assertError(FakeExchange ex, int status, String code, String message, String param) {
        assertEquals(status, ex.status(), ex.responseBody() == null ? "" : ex.responseBody().toString());
        var error = ex.responseBody().get("error");
        assertEquals(code, error.get("code").asText());
        if (message != null) assertEquals(message, error.get("message").asText());
        if (param != null) assertEquals(param, error.get("param").asText());
    }

    @Test
    void missingOrNullInput() throws Exception {
        assertError(api.post("{}"), 400, "missing_input", "Missing 'input' field", null);
        assertError(api.post("{\"input\":null}"), 400, "missing_input", "Missing 'input' field", null);
        assertTrue(api.runs.requests().isEmpty());
    }

    @Test
    void inputOfAnotherType() throws Exception {
        assertError(api.post("{\"input\":42}"), 400, "invalid_input", "'input' must be a string or array", null);
        assertError(api.post("{\"input\":{\"role\":\"user\"}}"), 400, "invalid_input", null, null);
    }

    @Test
    void noVisibleUserMessage() throws Exception {
        assertError(api.post("{\"input\":[]}"), 400, "no_user_message", "No user message found in input", null);
        assertError(api.post("{\"input\":\"   \"}"), 400, "no_user_message", null, null);
        assertError(api.post("{\"input\":[{\"type\":\"function_call\",\"name\":\"x\"}]}"), 400, "no_user_message",
                null, null);
    }

    @Test
    void conversationTogetherWithPreviousResponse() throws Exception {
        assertError(api.post("{\"input\":\"hi\",\"conversation\":\"c\",\"previous_response_id\":\"resp_x\"}"), 400,
                "conversation_conflict", "Cannot use both 'conversation' and 'previous_response_id'", null);
    }

    @Test
    void unknownPreviousResponseIs404() throws Exception {
        assertError(api.post("{\"input\":\"hi\",\"previous_response_id\":\"resp_nope\"}"), 404,
                "previous_response_not_found", "Previous response not found: resp_nope", null);
    }

    @Test
    void malformedConversationHistory() throws Exception {
        assertError(api.post("{\"input\":\"hi\",\"conversation_history\":\"x\"}"), 400,
                "invalid_conversation_history", null, null);
        assertError(api.post("{\"input\":\"hi\",\"conversation_history\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\"}]}"),
                400, "invalid_conversation_history", "conversation_history[1] must have 'role' and 'content' fields",
                null);
    }

    @Test
    void unsupportedContentParts() throws Exception {
        assertError(api.post("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_file\",\"file_id\":\"f\"}]}]}"),
                400, "unsupported_content_type",
                "Unsupported content part type 'input_file'. Only text and image_url/input_image parts are supported.",
                "input[0].content");
        assertError(api.post("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_image\",\"image_url\":\"\"}]}]}"),
                400, "invalid_image_url", "Image parts must include a non-empty image URL.", "input[0].content");
        assertError(api.post("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_image\",\"image_url\":\"ftp://x\"}]}]}"),
                400, "invalid_image_url", null, null);
        assertError(api.post("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_image\",\"image_url\":\"data:text/plain,x\"}]}]}"),
                400, "unsupported_content_type", null, null);
        assertError(api.post("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_image\",\"image_url\":\"https://x/a.png\",\"detail\":5}]}]}"),
                400, "invalid_content_part", null, null);
        assertError(api.post("{\"input\":\"hi\",\"conversation_history\":[{\"role\":\"user\",\"content\":[{\"type\":\"refusal\"}]}]}"),
                400, "unsupported_content_type", null, "conversation_history[0].content");
    }

    @Test
    void modelOptionsAndSessionKey() throws Exception {
        assertError(api.post("{\"input\":\"hi\",\"model_options\":3}"), 400, "invalid_model_options", null, null);
        assertError(api.post("{\"input\":\"hi\"}", "X-Hermes-Session-Key", "a\nb"), 400, "invalid_session_key",
                "Invalid session key", null);
        assertError(api.post("{\"input\":\"hi\"}", "X-Hermes-Session-Key", "k".repeat(257)), 400,
                "session_key_too_long", "Session key too long", null);
    }

    @Test
    void sessionIdHeaderIsIgnored() throws Exception {
        var ex = api.post("{\"input\":\"hi\"}", "X-Hermes-Session-Id", "bad id\u0001");
        assertEquals(200, ex.status());
    }

    @Test
    void admissionComesBeforeTheBody() throws Exception {
        api.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.AT_CAPACITY,
                "Too many concurrent runs (max 10)"));
        var ex = api.post("not json");
        assertError(ex, 429, "rate_limit_exceeded", "Too many concurrent runs (max 10)", null);
        assertEquals("1", ex.responseHeader("Retry-After").orElseThrow());
        api.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.DRAINING, "draining"));
        assertError(api.post("{}"), 503, "gateway_draining", "Gateway is draining existing work; retry shortly.",
                null);
        api.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.MODEL_NOT_CONFIGURED, "no model"));
        assertError(api.post("{}"), 503, "model_not_configured", null, null);
    }

    @Test
    void invalidJson() throws Exception {
        assertError(api.post("{"), 400, "invalid_json", null, null);
    }
}
