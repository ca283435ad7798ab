package dev.caduceus.plugin.runs;

import static dev.caduceus.plugin.runs.RunsHost.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every 400 of {@code POST /v1/runs}; none of them reaches the run service. */
class SubmitValidationTest {
    static RunsHost api;

    @BeforeAll
    static void start() {
        api = RunsHost.start();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    @AfterEach
    void nothingWasSubmitted() {
        assertEquals("[]", api.list("").json().path("data").toString(), "a rejected body must not start a run");
        assertTrue(api.upstream.chatRequests().isEmpty(), "nor call the model");
    }

    @Test
    void malformedJson() throws Exception {
        assertError(api.submit("{\"input\":"), 400, "invalid_json", null);
        assertError(api.submit(""), 400, "invalid_json", null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "{\"input\":null}", "{\"input\":\"\"}", "{\"input\":[]}", "{\"input\":{}}",
            "{\"input\":false}", "{\"input\":0}", "{\"input\":0.0}", "{\"input\":-0.0}", "{\"input\":1e-400}",
            "{\"input\":0e400}", "[]", "\"hi\""})
    void missingOrFalsyInput(String body) throws Exception {
        assertError(api.submit(body), 400, "missing_input", "Missing 'input' field");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"input\":42}", "{\"input\":true}", "{\"input\":{\"role\":\"user\",\"content\":\"hi\"}}",
            "{\"input\":1e400}", "{\"input\":-1e400}", "{\"input\":1.5}", "{\"input\":123456789012345678901234567890}"})
    void inputOfAnotherType(String body) throws Exception {
        assertError(api.submit(body), 400, "invalid_input", "'input' must be a string or array");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"input\":\"   \"}", "{\"input\":[{\"role\":\"user\",\"content\":\"\"}]}",
            "{\"input\":[{\"role\":\"user\"}]}", "{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\" \"}]}]}",
            "{\"input\":[\"earlier\",{\"role\":\"user\",\"content\":null}]}"})
    void noVisibleUserMessage(String body) throws Exception {
        assertError(api.submit(body), 400, "no_user_message", "No user message found in input");
    }

    @Test
    void contentNormalizationErrorsNameTheLastElement() throws Exception {
        var ex = api.submit("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":\"ftp://x/y.png\"}]}]}");
        assertError(ex, 400, "invalid_image_url", null);
        assertEquals("input[0].content", ex.error().path("param").asText());
        assertError(api.submit("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_file\",\"file_id\":\"f\"}]}]}"),
                400, "unsupported_content_type",
                "This server keeps no uploaded files (the files endpoint is off): send file_data instead");
        assertError(api.submit("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":\"data:text/plain,x\"}]}]}"),
                400, "unsupported_content_type", null);
        assertError(api.submit("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://x/a.png\",\"detail\":5}}]}]}"),
                400, "invalid_content_part", null);
    }

    @Test
    void malformedConversationHistory() throws Exception {
        assertError(api.submit("{\"input\":\"hi\",\"conversation_history\":\"x\"}"), 400,
                "invalid_conversation_history", null);
        assertError(api.submit("{\"input\":\"hi\",\"conversation_history\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\"}]}"),
                400, "invalid_conversation_history", "conversation_history[1] must have 'role' and 'content' fields");
        assertError(api.submit("{\"input\":\"hi\",\"conversation_history\":[\"text\"]}"), 400,
                "invalid_conversation_history", "conversation_history[0] must have 'role' and 'content' fields");
    }

    @Test
    void modelOptionsMustBeAnObject() throws Exception {
        assertError(api.submit("{\"input\":\"hi\",\"model_options\":\"fast\"}"), 400, "invalid_model_options", null);
    }

    @Test
    void sessionKeyHeader() throws Exception {
        // CR, LF and NUL never reach the plugin over HTTP: the host refuses the header first, in the contract's shape
        assertError(api.submitRaw("{\"input\":\"hi\"}", "X-Hermes-Session-Key", "a\u0000b"), 400, "invalid_header", null);
        assertError(api.submit("{\"input\":\"hi\"}", "X-Hermes-Session-Key", "k".repeat(257)), 400,
                "session_key_too_long", "Session key too long");
    }

    @Test
    void bodySessionIdTakesTheSessionIdRules() throws Exception {
        assertError(api.submit("{\"input\":\"hi\",\"session_id\":\"../etc\"}"), 400, "invalid_session_id",
                "Invalid session ID");
        assertError(api.submit("{\"input\":\"hi\",\"session_id\":\"a b\"}"), 400, "invalid_session_id", null);
        assertError(api.submit("{\"input\":\"hi\",\"session_id\":42}"), 400, "invalid_session_id", null);
        assertError(api.submit("{\"input\":\"hi\",\"session_id\":\"" + "s".repeat(257) + "\"}"), 400,
                "session_id_too_long", "Session ID too long");
    }

    @Test
    void aDelInTheIdempotencyKeyIsRefusedByTheHostOrThePlugin() {
        assertError(api.submitRaw("{\"input\":\"hi\"}", "Idempotency-Key", "\u007f"), 400, "invalid_header", null);
        assertFalse(IdempotencyKeyHeader.valid("a\u007fb"), "the plugin's own rule, should a host pass it on");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "has space", "tab\tkey", "caf\u00e9"})
    void idempotencyKeyMustBeVisibleAscii(String key) throws Exception {
        assertError(api.submitRaw("{\"input\":\"hi\"}", "Idempotency-Key", key), 400, "invalid_idempotency_key",
                "Idempotency-Key must be 1-255 visible ASCII characters");
    }

    @Test
    void idempotencyKeyOfMoreThan255Characters() throws Exception {
        assertError(api.submit("{\"input\":\"hi\"}", "Idempotency-Key", "k".repeat(256)), 400,
                "invalid_idempotency_key", null);
    }
}
