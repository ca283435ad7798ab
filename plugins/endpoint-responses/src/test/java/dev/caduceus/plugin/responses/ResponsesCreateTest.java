package dev.caduceus.plugin.responses;

import dev.caduceus.support.idempotency.IdempotencyCache;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResponsesCreateTest {
    @TempDir Path dir;
    TestDatabase db;
    ResponsesFixture api;

    @BeforeEach
    void setUp() {
        db = TestDatabase.open(dir, "endpoint-responses");
        api = new ResponsesFixture(db);
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    @Test
    void successListsToolItemsInTranscriptOrderThenTheMessage() throws Exception {
        api.answersWithTool();
        var ex = api.post("{\"input\":\"what is here?\",\"metadata\":{\"k\":\"v\"}}");
        assertEquals(200, ex.status());
        var body = ex.responseBody();
        assertTrue(body.get("id").asText().matches("resp_[0-9a-f]{28}"));
        assertEquals("response", body.get("object").asText());
        assertEquals("completed", body.get("status").asText());
        assertEquals(ResponsesFixture.CREATED, body.get("created_at").asLong());
        assertEquals("hermes-agent", body.get("model").asText());
        var out = body.get("output");
        assertEquals(3, out.size());
        assertTrue(out.get(0).get("id").asText().matches("fc_[0-9a-f]{24}"));
        assertEquals("{\"type\":\"function_call\",\"status\":\"completed\",\"name\":\"terminal\","
                + "\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\",\"call_id\":\"call_1\"}", without(out.get(0)));
        assertTrue(out.get(1).get("id").asText().matches("fco_[0-9a-f]{24}"));
        assertEquals("{\"type\":\"function_call_output\",\"status\":\"completed\",\"call_id\":\"call_1\","
                + "\"output\":\"README.md src\"}", without(out.get(1)));
        assertTrue(out.get(2).get("id").asText().matches("msg_[0-9a-f]{24}"));
        assertEquals("{\"type\":\"message\",\"status\":\"completed\",\"role\":\"assistant\",\"content\":[{\"type\":"
                + "\"output_text\",\"text\":\"Let me look. There are 2 entries.\",\"annotations\":[]}]}", without(out.get(2)));
        assertEquals("{\"input_tokens\":1830,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":95,"
                + "\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":1925}", body.get("usage").toString());
        assertTrue(body.get("error").isNull());
        assertTrue(body.get("incomplete_details").isNull());
        assertEquals("{\"k\":\"v\"}", body.get("metadata").toString());
        assertEquals(true, body.get("parallel_tool_calls").asBoolean());
        assertEquals("auto", body.get("tool_choice").asText());
        assertTrue(body.get("tools").isArray());
        assertTrue(ex.responseHeader("X-Hermes-Session-Id").isPresent());
        assertTrue(ex.responseHeader("X-Hermes-Completed").isEmpty());
        assertEquals(body.toString(), api.get(body.get("id").asText()).responseBody().toString());
    }

    private static String without(com.fasterxml.jackson.databind.JsonNode item) {
        var copy = item.deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) copy).remove("id");
        return copy.toString();
    }

    @Test
    void agentFailureIs200WithStatusFailed() throws Exception {
        api.ends(StopReason.UPSTREAM_ERROR, null, "Upstream model returned 401: invalid api key");
        var ex = api.post("{\"input\":\"hi\"}");
        assertEquals(200, ex.status());
        var body = ex.responseBody();
        assertEquals("failed", body.get("status").asText());
        assertEquals("{\"code\":\"server_error\",\"message\":\"Upstream model returned 401: invalid api key\","
                + "\"type\":\"server_error\"}", body.get("error").toString());
        assertEquals(0, body.get("output").size());
        assertEquals("false", ex.responseHeader("X-Hermes-Completed").orElseThrow());
        assertEquals("false", ex.responseHeader("X-Hermes-Partial").orElseThrow());
        assertEquals("failed", api.get(body.get("id").asText()).responseBody().get("status").asText());
    }

    @Test
    void partialTextStillFailsWhenNoFinalText() throws Exception {
        api.ends(StopReason.INTERRUPTED, "", "Interrupted");
        var body = api.post("{\"input\":\"hi\"}").responseBody();
        assertEquals("failed", body.get("status").asText());
    }

    @Test
    void previousResponseIdChainsHistoryInstructionsAndSession() throws Exception {
        api.answers("one").answers("two").answers("three"); // ScriptedRuns plays scripts in order
        var first = api.post("{\"input\":\"first\",\"instructions\":\"be brief\"}", "X-Hermes-Session-Key", "user-42");
        var session = first.responseHeader("X-Hermes-Session-Id").orElseThrow();
        assertEquals("key-" + IdempotencyCache.sha256Hex("user-42").substring(0, 16), session);
        assertEquals("be brief", api.lastRequest().instructions());
        var id1 = first.responseBody().get("id").asText();
        var second = api.post("{\"input\":\"second\",\"previous_response_id\":\"" + id1 + "\"}");
        assertEquals(session, second.responseHeader("X-Hermes-Session-Id").orElseThrow());
        assertEquals(session, api.lastRequest().sessionId());
        assertEquals("be brief", api.lastRequest().instructions());
        assertEquals("be brief", second.responseBody().get("instructions").asText());
        assertEquals(id1, second.responseBody().get("previous_response_id").asText());
        assertEquals("user:first|assistant:one|user:second|", ResponsesFixture.texts(api.lastRequest().messages()));
        var id2 = second.responseBody().get("id").asText();
        api.post("{\"input\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":\"b\"},"
                + "\"third\"],\"previous_response_id\":\"" + id2 + "\",\"instructions\":\"new\"}");
        assertEquals("new", api.lastRequest().instructions());
        assertEquals("user:first|assistant:one|user:second|assistant:two|user:a|assistant:b|user:third|",
                ResponsesFixture.texts(api.lastRequest().messages()));
    }

    @Test
    void conversationNameFollowsTheLatestResponse() throws Exception {
        api.answers("one");
        api.post("{\"input\":\"first\",\"conversation\":\"chat-1\"}");
        api.answers("two");
        api.post("{\"input\":\"second\",\"conversation\":{\"id\":\"chat-1\"}}");
        assertEquals("user:first|assistant:one|user:second|", ResponsesFixture.texts(api.lastRequest().messages()));
        api.answers("x");
        api.post("{\"input\":\"other\",\"conversation\":\"chat-2\"}");
        assertEquals("user:other|", ResponsesFixture.texts(api.lastRequest().messages()));
    }

    @Test
    void conversationHistoryWinsOverThePreviousResponse() throws Exception {
        api.answers("one");
        var id1 = api.post("{\"input\":\"first\"}").responseBody().get("id").asText();
        api.answers("two");
        api.post("{\"input\":\"q\",\"previous_response_id\":\"" + id1 + "\",\"conversation_history\":["
                + "{\"role\":\"user\",\"content\":\"h1\"},{\"role\":\"assistant\",\"content\":\"h2\"}]}");
        assertEquals("user:h1|assistant:h2|user:q|", ResponsesFixture.texts(api.lastRequest().messages()));
        // No 404 check when history is explicit.
        var ex = api.post("{\"input\":\"q\",\"previous_response_id\":\"resp_gone\",\"conversation_history\":[]}");
        assertEquals(200, ex.status());
    }

    @Test
    void truncationAutoSendsTheLast100HistoryMessages() throws Exception {
        var history = new StringBuilder("[");
        for (int i = 0; i < 150; i++) history.append(i == 0 ? "" : ",").append("{\"role\":\"user\",\"content\":\"m")
                .append(i).append("\"}");
        history.append("]");
        api.answers("ok");
        api.post("{\"input\":\"q\",\"truncation\":\"auto\",\"conversation_history\":" + history + "}");
        var messages = api.lastRequest().messages();
        assertEquals(101, messages.size());
        assertEquals("m50", messages.getFirst().text());
        api.post("{\"input\":\"q\",\"conversation_history\":" + history + "}");
        assertEquals(151, api.lastRequest().messages().size());
    }

    @Test
    void storeFalseKeepsNothing() throws Exception {
        api.answers("ok");
        var ex = api.post("{\"input\":\"hi\",\"store\":\"no\"}");
        var id = ex.responseBody().get("id").asText();
        var get = api.get(id);
        assertEquals(404, get.status());
        assertEquals("response_not_found", get.responseBody().get("error").get("code").asText());
        assertEquals("Response not found: " + id, get.responseBody().get("error").get("message").asText());
    }

    @Test
    void randomSessionWithoutKeyAndModelEcho() throws Exception {
        api.answers("ok");
        var ex = api.post("{\"input\":\"hi\",\"model\":\"gpt-4o\"}");
        assertTrue(ex.responseHeader("X-Hermes-Session-Id").orElseThrow().matches("[0-9a-f-]{36}"));
        assertEquals("gpt-4o", ex.responseBody().get("model").asText());
        assertNull(api.lastRequest().model());
        api.post("{\"input\":\"hi\",\"model\":\"gpt-4o\",\"provider\":\"openai\"}");
        assertEquals("gpt-4o", api.lastRequest().model());
    }

    @Test
    void idempotencyKeyReusesTheResultWithANewResponse() throws Exception {
        api.answers("cached");
        var a = api.post("{\"input\":\"hi\"}", "Idempotency-Key", "k1");
        api.answers("fresh");
        var b = api.post("{\"input\":\"hi\"}", "Idempotency-Key", "k1");
        assertEquals(1, api.runs.requests().size());
        assertNotEquals(a.responseBody().get("id"), b.responseBody().get("id"));
        assertEquals("cached", b.responseBody().get("output").get(0).get("content").get(0).get("text").asText());
        assertEquals(200, api.get(b.responseBody().get("id").asText()).status());
        api.post("{\"input\":\"other\"}", "Idempotency-Key", "k1");
        assertEquals(2, api.runs.requests().size());
    }

    @Test
    void aRestartKeepsTheChain() throws Exception {
        api.answers("one");
        var id1 = api.post("{\"input\":\"first\",\"conversation\":\"c\"}").responseBody().get("id").asText();
        var restarted = new ResponsesFixture(db);
        restarted.answers("two");
        restarted.post("{\"input\":\"second\",\"previous_response_id\":\"" + id1 + "\"}");
        assertEquals("user:first|assistant:one|user:second|", ResponsesFixture.texts(restarted.lastRequest().messages()));
        restarted.post("{\"input\":\"third\",\"conversation\":\"c\"}");
        assertEquals("user:first|assistant:one|user:third|", ResponsesFixture.texts(restarted.lastRequest().messages()));
    }

    @Test
    void featuresAndRoutes() {
        var small = new ResponsesFixture(db, Map.of());
        assertEquals("responses", small.family.id());
        assertEquals("/v1/responses", small.family.basePath());
        assertEquals("{\"responses_api\":true,\"responses_streaming\":true,\"responses_event_replay\":true,"
                + "\"responses_input_items\":true,\"idempotency\":{\"responses\":{\"supported\":true,\"durable\":false,\"retention_seconds\":300}}}",
                small.family.features().toString());
        assertEquals(4, small.handlers.size());
        assertTrue(small.handlers.containsKey("GET /v1/responses/{response_id}/input_items"));
        assertFalse(small.handlers.containsKey("PUT /v1/responses"));
    }
}
