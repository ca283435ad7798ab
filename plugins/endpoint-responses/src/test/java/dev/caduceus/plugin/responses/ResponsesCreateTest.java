package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.support.idempotency.IdempotencyCache;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Non-streaming {@code POST /v1/responses} on the real host; names and keys are unique per test. */
class ResponsesCreateTest {
    private static ResponsesHost api;

    @BeforeAll
    static void boot() {
        api = ResponsesHost.start();
    }

    @AfterAll
    static void shutDown() {
        if (api != null) api.close();
    }

    @BeforeEach
    void reset() {
        api.reset();
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    @Test
    void successListsToolItemsInTranscriptOrderThenTheMessage() throws Exception {
        api.answersWithTool();
        var ex = api.post("{\"input\":\"what is here?\",\"metadata\":{\"k\":\"v\"}}");
        assertEquals(200, ex.status(), ex.body());
        var body = ex.json();
        assertTrue(body.get("id").asText().matches("resp_[0-9a-f]{28}"));
        assertEquals("response", body.get("object").asText());
        assertEquals("completed", body.get("status").asText());
        assertTrue(body.get("created_at").asLong() > 0);
        assertEquals("hermes-agent", body.get("model").asText());
        var out = body.get("output");
        assertEquals(2, out.size(), out::toString);
        assertTrue(out.get(0).get("id").asText().matches("mcp_[0-9a-f]{24}"));
        assertEquals("{\"type\":\"mcp_call\",\"status\":\"completed\",\"server_label\":\"caduceus\",\"name\":\"terminal\","
                + "\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\",\"output\":"
                + ResponsesHost.JSON.writeValueAsString(ResponsesHost.UNKNOWN_TERMINAL) + ",\"error\":null}", without(out.get(0)),
                "a step the server ran is one mcp_call item (issue 42): clients take function_call as theirs to run");
        assertTrue(out.get(1).get("id").asText().matches("msg_[0-9a-f]{24}"));
        assertEquals("{\"type\":\"message\",\"status\":\"completed\",\"role\":\"assistant\",\"content\":[{\"type\":"
                + "\"output_text\",\"text\":\"There are 2 entries.\",\"annotations\":[]}]}", without(out.get(1)));
        assertEquals("{\"input_tokens\":1830,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":95,"
                + "\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":1925}", body.get("usage").toString());
        assertTrue(body.get("error").isNull());
        assertTrue(body.get("incomplete_details").isNull());
        assertEquals("{\"k\":\"v\"}", body.get("metadata").toString());
        assertEquals(true, body.get("parallel_tool_calls").asBoolean());
        assertEquals("auto", body.get("tool_choice").asText());
        assertTrue(body.get("tools").isArray());
        assertTrue(ex.header("X-Hermes-Session-Id").isPresent());
        assertTrue(ex.header("X-Hermes-Completed").isEmpty());
        assertEquals(body.toString(), api.get(body.get("id").asText()).json().toString());
    }

    private static String without(JsonNode item) {
        var copy = item.deepCopy();
        ((ObjectNode) copy).remove("id");
        return copy.toString();
    }

    @Test
    void agentFailureIs200WithStatusFailed() {
        api.upstream.enqueue(Turn.error(401, "invalid api key"));
        var ex = api.post("{\"input\":\"hi\"}");
        assertEquals(200, ex.status(), ex.body());
        var body = ex.json();
        assertEquals("failed", body.get("status").asText());
        assertEquals("{\"code\":\"server_error\",\"message\":\"Upstream model returned 401: invalid api key\","
                + "\"type\":\"server_error\"}", body.get("error").toString());
        assertEquals(0, body.get("output").size());
        assertEquals("false", ex.header("X-Hermes-Completed").orElseThrow());
        assertEquals("false", ex.header("X-Hermes-Partial").orElseThrow());
        assertEquals("failed", api.get(body.get("id").asText()).json().get("status").asText());
    }

    @Test
    void aTurnWithoutFinalTextFails() {
        api.upstream.enqueue(Turn.text(""), Turn.text("")); // empty twice: the runtime gives up
        var body = api.post("{\"input\":\"hi\"}").json();
        assertEquals("failed", body.get("status").asText(), body.toString());
    }

    @Test
    void previousResponseIdChainsHistoryInstructionsAndSession() {
        var sessionKey = unique("user-42");
        api.answers("one").answers("two").answers("three");
        var first = api.post("{\"input\":\"first\",\"instructions\":\"be brief\"}", "X-Hermes-Session-Key", sessionKey);
        var session = first.header("X-Hermes-Session-Id").orElseThrow();
        assertEquals("key-" + IdempotencyCache.sha256Hex(sessionKey).substring(0, 16), session);
        assertTrue(api.lastSystemPrompt().endsWith("be brief"), api.lastSystemPrompt());
        var id1 = first.json().get("id").asText();
        var second = api.post("{\"input\":\"second\",\"previous_response_id\":\"" + id1 + "\"}");
        assertEquals(session, second.header("X-Hermes-Session-Id").orElseThrow());
        assertTrue(api.lastSystemPrompt().endsWith("be brief"), "the chain keeps the instructions");
        assertEquals("be brief", second.json().get("instructions").asText());
        assertEquals(id1, second.json().get("previous_response_id").asText());
        assertEquals("user:first|assistant:one|user:second|", api.lastModelTexts());
        var id2 = second.json().get("id").asText();
        api.post("{\"input\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":\"b\"},"
                + "\"third\"],\"previous_response_id\":\"" + id2 + "\",\"instructions\":\"new\"}");
        assertTrue(api.lastSystemPrompt().endsWith("new"), api.lastSystemPrompt());
        assertEquals("user:first|assistant:one|user:second|assistant:two|user:a|assistant:b|user:third|",
                api.lastModelTexts());
    }

    @Test
    void conversationNameFollowsTheLatestResponse() {
        var name = unique("chat-1");
        api.answers("one");
        api.post("{\"input\":\"first\",\"conversation\":\"" + name + "\"}");
        api.answers("two");
        api.post("{\"input\":\"second\",\"conversation\":{\"id\":\"" + name + "\"}}");
        assertEquals("user:first|assistant:one|user:second|", api.lastModelTexts());
        api.answers("x");
        api.post("{\"input\":\"other\",\"conversation\":\"" + unique("chat-2") + "\"}");
        assertEquals("user:other|", api.lastModelTexts());
    }

    @Test
    void conversationHistoryWinsOverThePreviousResponse() {
        api.answers("one");
        var id1 = api.post("{\"input\":\"first\"}").json().get("id").asText();
        api.answers("two");
        api.post("{\"input\":\"q\",\"previous_response_id\":\"" + id1 + "\",\"conversation_history\":["
                + "{\"role\":\"user\",\"content\":\"h1\"},{\"role\":\"assistant\",\"content\":\"h2\"}]}");
        assertEquals("user:h1|assistant:h2|user:q|", api.lastModelTexts());
        // No 404 check when history is explicit.
        api.answers("three");
        var ex = api.post("{\"input\":\"q\",\"previous_response_id\":\"resp_gone\",\"conversation_history\":[]}");
        assertEquals(200, ex.status(), ex.body());
    }

    @Test
    void truncationAutoSendsTheLast100HistoryMessages() {
        var history = new StringBuilder("[");
        for (int i = 0; i < 150; i++) history.append(i == 0 ? "" : ",").append("{\"role\":\"user\",\"content\":\"m")
                .append(i).append("\"}");
        history.append("]");
        api.answers("ok").answers("ok");
        api.post("{\"input\":\"q\",\"truncation\":\"auto\",\"conversation_history\":" + history + "}");
        var messages = api.lastModelMessages();
        assertEquals(101, messages.size());
        assertEquals("m50", messages.get(0).path("content").asText());
        api.post("{\"input\":\"q\",\"conversation_history\":" + history + "}");
        assertEquals(151, api.lastModelMessages().size());
    }

    @Test
    void storeFalseKeepsNothing() {
        api.answers("ok");
        var ex = api.post("{\"input\":\"hi\",\"store\":\"no\"}");
        var id = ex.json().get("id").asText();
        var get = api.get(id);
        assertEquals(404, get.status());
        assertEquals("response_not_found", get.error().get("code").asText());
        assertEquals("Response not found: " + id, get.error().get("message").asText());
    }

    @Test
    void randomSessionWithoutKeyAndModelEcho() {
        api.answers("ok").answers("ok");
        var ex = api.post("{\"input\":\"hi\",\"model\":\"gpt-4o\"}");
        assertTrue(ex.header("X-Hermes-Session-Id").orElseThrow().matches("[0-9a-f-]{36}"));
        assertEquals("gpt-4o", ex.json().get("model").asText());
        assertEquals(ScriptedUpstream.MODEL, api.lastModelRequest().path("model").asText(), "the configured model");
        api.post("{\"input\":\"hi\",\"model\":\"gpt-4o\",\"provider\":\"openai\"}");
        assertEquals("gpt-4o", api.lastModelRequest().path("model").asText());
    }

    @Test
    void idempotencyKeyReusesTheResultWithANewResponse() {
        var key = unique("k1");
        int before = api.modelCalls();
        api.answers("cached");
        var a = api.post("{\"input\":\"hi\"}", "Idempotency-Key", key);
        api.answers("fresh");
        var b = api.post("{\"input\":\"hi\"}", "Idempotency-Key", key);
        assertEquals(1, api.modelCalls() - before);
        assertNotEquals(a.json().get("id"), b.json().get("id"));
        assertEquals("cached", b.json().get("output").get(0).get("content").get(0).get("text").asText());
        assertEquals(200, api.get(b.json().get("id").asText()).status());
        api.post("{\"input\":\"other\"}", "Idempotency-Key", key);
        assertEquals(2, api.modelCalls() - before);
    }

    @Test
    void aRestartKeepsTheChain(@TempDir Path home) {
        String id1;
        try (var first = ResponsesHost.start(home)) {
            first.answers("one");
            id1 = first.post("{\"input\":\"first\",\"conversation\":\"c\"}").json().get("id").asText();
        }
        try (var restarted = ResponsesHost.start(home)) {
            restarted.answers("two").answers("three");
            restarted.post("{\"input\":\"second\",\"previous_response_id\":\"" + id1 + "\"}");
            assertEquals("user:first|assistant:one|user:second|", restarted.lastModelTexts());
            restarted.post("{\"input\":\"third\",\"conversation\":\"c\"}");
            assertEquals("user:first|assistant:one|user:third|", restarted.lastModelTexts());
        }
    }
}
