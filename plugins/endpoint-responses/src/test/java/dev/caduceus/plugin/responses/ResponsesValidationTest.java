package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Create-request validation and admission on the real host, over HTTP; one run at a time
 * ({@code server.max_concurrent_runs} 1) so that a held run puts the host at capacity. A session key
 * with a line break cannot travel over HTTP/1.1: {@link ResponsesSessionHeadersTest} checks it on the reader.
 */
class ResponsesValidationTest {
    private static ResponsesHost api;

    @BeforeAll
    static void boot() {
        api = ResponsesHost.start("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "1");
    }

    @AfterAll
    static void shutDown() {
        if (api != null) api.close();
    }

    @BeforeEach
    void reset() {
        api.reset();
        api.answers("ok");
    }

    private static void assertError(HostClient.Response ex, int status, String code, String message, String param) {
        assertEquals(status, ex.status(), ex::body);
        var error = ex.error();
        assertEquals(code, error.get("code").asText());
        if (message != null) assertEquals(message, error.get("message").asText());
        if (param != null) assertEquals(param, error.get("param").asText());
    }

    @Test
    void missingOrNullInput() {
        int before = api.modelCalls();
        assertError(api.post("{}"), 400, "missing_input", "Missing 'input' field", null);
        assertError(api.post("{\"input\":null}"), 400, "missing_input", "Missing 'input' field", null);
        assertEquals(before, api.modelCalls(), "no run");
    }

    @Test
    void inputOfAnotherType() {
        assertError(api.post("{\"input\":42}"), 400, "invalid_input", "'input' must be a string or array", null);
        assertError(api.post("{\"input\":{\"role\":\"user\"}}"), 400, "invalid_input", null, null);
    }

    @Test
    void noVisibleUserMessage() {
        assertError(api.post("{\"input\":[]}"), 400, "no_user_message", "No user message found in input", null);
        assertError(api.post("{\"input\":\"   \"}"), 400, "no_user_message", null, null);
        assertError(api.post("{\"input\":[{\"type\":\"function_call\",\"name\":\"x\",\"call_id\":\"c\"}]}"), 400,
                "no_user_message", null, null);
        assertError(api.post("{\"input\":[{\"type\":\"function_call_output\",\"call_id\":\"c\",\"output\":\"r\"}]}"), 400,
                "no_user_message", null, null); // an answer to no call
        assertError(api.post("{\"input\":[{\"type\":\"function_call\",\"name\":\"x\"}]}"), 400,
                "missing_required_parameter", null, "input[0].call_id");
    }

    @Test
    void conversationTogetherWithPreviousResponse() {
        assertError(api.post("{\"input\":\"hi\",\"conversation\":\"c\",\"previous_response_id\":\"resp_x\"}"), 400,
                "conversation_conflict", "Cannot use both 'conversation' and 'previous_response_id'", null);
    }

    @Test
    void unknownPreviousResponseIs404() {
        assertError(api.post("{\"input\":\"hi\",\"previous_response_id\":\"resp_nope\"}"), 404,
                "previous_response_not_found", "Previous response not found: resp_nope", null);
    }

    @Test
    void malformedConversationHistory() {
        assertError(api.post("{\"input\":\"hi\",\"conversation_history\":\"x\"}"), 400,
                "invalid_conversation_history", null, null);
        assertError(api.post("{\"input\":\"hi\",\"conversation_history\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\"}]}"),
                400, "invalid_conversation_history", "conversation_history[1] must have 'role' and 'content' fields",
                null);
    }

    @Test
    void unsupportedContentParts() {
        assertError(api.post("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_file\",\"file_id\":\"f\"}]}]}"),
                400, "unsupported_content_type",
                "This server keeps no uploaded files (the files endpoint is off): send file_data instead",
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
    void modelOptionsAndSessionKey() {
        assertError(api.post("{\"input\":\"hi\",\"model_options\":3}"), 400, "invalid_model_options", null, null);
        assertError(api.post("{\"input\":\"hi\"}", "X-Hermes-Session-Key", "k".repeat(257)), 400,
                "session_key_too_long", "Session key too long", null);
    }

    @Test
    void sessionIdHeaderIsIgnored() {
        var ex = api.post("{\"input\":\"hi\"}", "X-Hermes-Session-Id", "bad id/..");
        assertEquals(200, ex.status());
    }

    @Test
    void atCapacityAdmissionComesBeforeTheBody() throws Exception {
        api.reset();
        var held = new HeldTurn(Turn.text("busy"));
        api.upstream.enqueue(held);
        var busy = Thread.ofVirtual().start(() -> api.post("{\"input\":\"hi\"}"));
        try {
            held.awaitArrival();
            var ex = api.post("not json");
            assertError(ex, 429, "rate_limit_exceeded", null, null);
            assertTrue(ex.error().get("message").asText().startsWith("Too many concurrent runs"), ex.body());
            assertEquals("1", ex.header("Retry-After").orElseThrow());
        } finally {
            held.release();
            busy.join();
        }
    }

    @Test
    void drainingIs503() throws Exception {
        var ex = ResponsesHost.start().answerWhileDraining("{}");
        var error = ResponsesHost.JSON.readTree(ex.body()).path("error");
        assertEquals("gateway_draining", error.path("code").asText(), ex.body());
        assertEquals("Gateway is draining existing work; retry shortly.", error.path("message").asText());
    }

    @Test
    void noModelIs503BeforeTheBody() {
        try (var host = TestHost.builder().plugins("endpoint-responses", "provider-openai").start()) {
            assertError(host.http().post(ResponsesHost.PATH, "{}"), 503, "model_not_configured", null, null);
        }
    }

    @Test
    void invalidJson() {
        assertError(api.post("{"), 400, "invalid_json", null, null);
    }
}
