package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Non-streaming chat completions on the real host. {@code agent.max_iterations} is 1 here so that one
 * tool call reaches the iteration limit; every other turn is a single model call.
 */
class ChatCompletionTest {
    private static ChatHost chat;

    private static final String CONVERSATION = """
            {"model":"gpt-4o","messages":[
              {"role":"system","content":"Be brief."},
              {"role":"developer","content":"ignored"},
              {"role":"user","content":"first question"},
              {"role":"assistant","content":"first answer","tool_calls":[{"id":"c1","type":"function","function":{"name":"x","arguments":"{}"}}]},
              {"role":"tool","tool_call_id":"c1","content":"tool output"},
              {"role":"system","content":[{"type":"text","text":"Use metric units."},{"type":"image_url","image_url":"https://x/y.png"}]},
              {"role":"user","content":"How many files?"}],
             "model_options":{"reasoning_effort":"high","service_tier":"flex","other":1}}
            """;

    @BeforeAll
    static void boot() {
        chat = ChatHost.start("CADUCEUS__AGENT__MAX_ITERATIONS", "1");
    }

    @AfterAll
    static void shutDown() {
        if (chat != null) chat.close();
    }

    @BeforeEach
    void reset() {
        chat.reset();
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    /** A call of a tool no plugin offers: the runtime still runs the loop (the call fails as unknown). */
    private static Turn toolCall() {
        return Turn.toolCalls(Turn.ToolCall.of("call_1", "terminal", "{\"command\":\"ls\"}"));
    }

    @Test
    void successAnswersAChatCompletionEchoingTheModel() throws Exception {
        chat.answers("There are 3 files in the workspace.");
        var ex = chat.post(CONVERSATION, "X-Hermes-Session-Key", "agent:main:webui:dm:user-42");
        assertEquals(200, ex.status(), ex.body());
        var body = ex.json();
        assertTrue(body.get("id").asText().matches("chatcmpl-[0-9a-f]{29}"), body.get("id").asText());
        assertTrue(body.get("created").asLong() > 0);
        var expected = ChatHost.JSON.readTree("""
                {"id":"ID","object":"chat.completion","created":0,"model":"gpt-4o",
                 "choices":[{"index":0,"message":{"role":"assistant","content":"There are 3 files in the workspace.","refusal":null},"logprobs":null,"finish_reason":"stop"}],
                 "usage":{"prompt_tokens":1830,"completion_tokens":95,"total_tokens":1925}}""");
        ((ObjectNode) expected).put("id", body.get("id").asText()).put("created", body.get("created").asLong());
        assertEquals(expected.toString(), body.toString()); // also checks key order
        assertEquals(List.of("id", "object", "created", "model", "choices", "usage"), fieldNames(body));
        assertEquals(Optional.of(ChatHandler.derivedSessionId(ChatRequest.parse(ChatHost.JSON.readTree(CONVERSATION), "x"))),
                ex.header("X-Hermes-Session-Id"));
        assertEquals(Optional.of("agent:main:webui:dm:user-42"), ex.header("X-Hermes-Session-Key"));
        assertFalse(ex.header("X-Hermes-Completed").isPresent());
    }

    @Test
    void absentModelEchoesTheAdvertisedName() {
        chat.answers("hello");
        assertEquals("hermes-agent", chat.post(ChatHost.USER_HI).json().get("model").asText());
        assertEquals(ScriptedUpstream.MODEL, chat.lastModelRequest().path("model").asText(), "the configured model");
    }

    @Test
    void anotherModelNameGoesUpstreamOnlyWithProviderOrDirectModelRequests() {
        chat.answers("ok");
        chat.post("{\"model\":\"gpt-x\",\"provider\":\"openai\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertEquals("gpt-x", chat.lastModelRequest().path("model").asText());

        try (var direct = ChatHost.start("CADUCEUS__MODEL__DIRECT_MODEL_REQUESTS", "true")) {
            direct.answers("ok").answers("ok");
            direct.post("{\"model\":\"gpt-y\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
            assertEquals("gpt-y", direct.lastModelRequest().path("model").asText());
            direct.post("{\"model\":\"hermes-agent\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
            assertEquals(ScriptedUpstream.MODEL, direct.lastModelRequest().path("model").asText(),
                    "the advertised name means the configured model");
        }
    }

    @Test
    void theRunSendsSystemTextHistoryAndOptionsToTheModel() {
        chat.answers("ok");
        chat.post(CONVERSATION, "X-Hermes-Session-Key", "scope-1");
        var sent = chat.lastModelRequest();
        assertEquals(ScriptedUpstream.MODEL, sent.path("model").asText(), "other model names are ignored on chat (§14.2)");
        assertTrue(chat.lastSystemPrompt().endsWith("Be brief.\nUse metric units."), chat.lastSystemPrompt());
        assertFalse(chat.lastSystemPrompt().contains("ignored"), "developer messages are not system text");
        assertEquals("user:first question|assistant:first answer|tool:tool output|user:How many files?|",
                chat.lastModelMessages());
        assertEquals("c1", sent.path("messages").get(2).path("tool_calls").path(0).path("id").asText(),
                "the body's tool calls and their results are history (issue 42: ids this host did not issue)");
        assertEquals("c1", sent.path("messages").get(3).path("tool_call_id").asText());
        assertFalse(sent.path("stream").asBoolean(), "nobody reads a non-streaming answer while it is written");
        assertEquals("high", sent.path("reasoning_effort").asText());
        assertEquals("flex", sent.path("service_tier").asText());
        assertFalse(sent.has("other"));
    }

    @Test
    void derivedSessionIdHashesSystemTextAndFirstUserText() throws Exception {
        chat.answers("ok").answers("ok again");
        var ex = chat.post(CONVERSATION);
        var digest = MessageDigest.getInstance("SHA-256")
                .digest("Be brief.\nUse metric units.\nfirst question".getBytes(StandardCharsets.UTF_8));
        var expected = "api-" + HexFormat.of().formatHex(digest).substring(0, 16);
        assertEquals(Optional.of(expected), ex.header("X-Hermes-Session-Id"));
        // The run appended to that session's transcript; without the header the body history still wins.
        chat.post(CONVERSATION);
        assertEquals("user:first question|assistant:first answer|tool:tool output|user:How many files?|",
                chat.lastModelMessages(), "the body history is authoritative without the header");
    }

    @Test
    void sessionHeaderReplacesTheBodyHistoryWithTheTranscript() {
        var session = unique("chat-7");
        chat.answers("stored answer");
        chat.post("{\"messages\":[{\"role\":\"user\",\"content\":\"earlier\"}]}", "X-Hermes-Session-Id", session);
        chat.answers("ok");
        var ex = chat.post(CONVERSATION, "X-Hermes-Session-Id", session);
        assertEquals(Optional.of(session), ex.header("X-Hermes-Session-Id"));
        assertEquals("user:earlier|assistant:stored answer|user:How many files?|", chat.lastModelMessages());
    }

    @Test
    void unknownSessionIdStartsAnEmptySession() {
        chat.answers("ok");
        chat.post(CONVERSATION, "X-Hermes-Session-Id", unique("new-session"));
        assertEquals("user:How many files?|", chat.lastModelMessages());
    }

    @Test
    void iterationLimitIsASoftPartialWithFinishReasonLength() throws Exception {
        chat.upstream.enqueue(toolCall(), Turn.text("Here is what I found so far.").usage(1830, 95));
        var ex = chat.post(ChatHost.USER_HI);
        assertEquals(200, ex.status(), ex.body());
        var body = ex.json();
        assertEquals("length", body.at("/choices/0/finish_reason").asText());
        assertEquals("Here is what I found so far.", body.at("/choices/0/message/content").asText());
        assertEquals(ChatHost.JSON.readTree("""
                {"completed":false,"partial":true,"failed":false,"error":"Reached the iteration limit (1)","error_code":"output_truncated"}"""),
                body.get("hermes"));
        assertEquals(Optional.of("false"), ex.header("X-Hermes-Completed"));
        assertEquals(Optional.of("true"), ex.header("X-Hermes-Partial"));
        assertEquals(Optional.of("Reached the iteration limit (1)"), ex.header("X-Hermes-Error"));
    }

    @Test
    void failureWithTextSoFarIsA200WithFinishReasonError() {
        // The text that came with the tool call is the partial answer when the next call fails for good.
        chat.upstream.enqueue(toolCall().withText("partial text"), Turn.error(400, "x".repeat(300)));
        var ex = chat.post(ChatHost.USER_HI);
        assertEquals(200, ex.status(), ex.body());
        assertEquals("error", ex.json().at("/choices/0/finish_reason").asText());
        assertEquals("partial text", ex.json().at("/choices/0/message/content").asText());
        assertEquals("agent_error", ex.json().at("/hermes/error_code").asText());
        assertTrue(ex.json().at("/hermes/failed").asBoolean());
        assertTrue(ex.header("X-Hermes-Error").orElseThrow().startsWith("Upstream model returned 400: xxx"));
        assertEquals(200, ex.header("X-Hermes-Error").orElseThrow().length());
        assertEquals(Optional.of("false"), ex.header("X-Hermes-Partial"));
    }

    @Test
    void hardFailureIs502AgentIncompleteWithTheHermesObject() throws Exception {
        chat.upstream.enqueue(Turn.error(401, "invalid api key"));
        var ex = chat.post(ChatHost.USER_HI, "X-Hermes-Session-Id", unique("s1"));
        assertEquals(502, ex.status(), ex.body());
        assertEquals(ChatHost.JSON.readTree("""
                {"error":{"message":"Upstream model returned 401: invalid api key","type":"server_error","param":null,"code":"agent_incomplete",
                 "hermes":{"completed":false,"partial":false,"failed":true}}}"""), ex.json());
        assertEquals(Optional.of("false"), ex.header("X-Hermes-Completed"));
        assertEquals(Optional.of("false"), ex.header("X-Hermes-Partial"));
        assertTrue(ex.header("X-Hermes-Session-Id").orElseThrow().startsWith("s1-"));
        assertEquals(Optional.of("false"), ex.header("x-should-retry"));
    }

    @Test
    void contextLengthWithoutTextIsAHardFailureMarkedPartial() {
        chat.upstream.enqueue(Turn.error(400, "This model's maximum context length is 8192 tokens"));
        var ex = chat.post(ChatHost.USER_HI);
        assertEquals(502, ex.status(), ex.body());
        assertEquals(Optional.of("true"), ex.header("X-Hermes-Partial"));
        assertTrue(ex.json().at("/error/hermes/partial").asBoolean());
    }

    @Test
    void clientDisconnectWhileWaitingCancelsTheRun() throws Exception {
        var held = new HeldTurn(Turn.text("too late"));
        chat.upstream.enqueue(held);
        try (var socket = chat.postRaw(ChatHost.USER_HI)) {
            held.awaitArrival();
            assertEquals(1, chat.activeRuns());
            socket.close(); // the client leaves
            // The model has not answered: only a cancellation can have ended the run.
            chat.awaitNoActiveRun("the run is cancelled when its client leaves");
        } finally {
            held.release();
        }
    }

    @Test
    void idempotencyKeyReplaysTheResultWithANewId() {
        var key = unique("k1");
        chat.answers("once");
        int before = chat.modelCalls();
        var first = chat.post(CONVERSATION, "Idempotency-Key", key);
        var second = chat.post(CONVERSATION, "Idempotency-Key", key);
        assertEquals(1, chat.modelCalls() - before);
        assertEquals("once", second.json().at("/choices/0/message/content").asText());
        assertNotEquals(first.json().get("id"), second.json().get("id"));
    }

    @Test
    void idempotencyFingerprintMismatchRunsAgain() {
        var key = unique("k1");
        chat.answers("a").answers("b").answers("c");
        int before = chat.modelCalls();
        chat.post(ChatHost.USER_HI, "Idempotency-Key", key);
        chat.post("{\"messages\":[{\"role\":\"user\",\"content\":\"bye\"}]}", "Idempotency-Key", key);
        chat.post("{\"messages\":[{\"role\":\"user\",\"content\":\"bye\"}]}", "Idempotency-Key", key,
                "X-Hermes-Session-Key", "other-scope");
        chat.post("{\"messages\":[{\"role\":\"user\",\"content\":\"bye\"}]}", "Idempotency-Key", key,
                "X-Hermes-Session-Key", "other-scope");
        assertEquals(3, chat.modelCalls() - before);
    }

    @Test
    void structuredFailuresAreReplayedToo() {
        var key = unique("k");
        chat.upstream.enqueue(Turn.error(401, "boom"));
        int before = chat.modelCalls();
        assertEquals(502, chat.post(ChatHost.USER_HI, "Idempotency-Key", key).status());
        assertEquals(502, chat.post(ChatHost.USER_HI, "Idempotency-Key", key).status());
        assertEquals(1, chat.modelCalls() - before);
    }

    @Test
    void withoutAKeyEveryRequestRuns() {
        chat.answers("a").answers("a");
        int before = chat.modelCalls();
        chat.post(ChatHost.USER_HI);
        chat.post(ChatHost.USER_HI);
        assertEquals(2, chat.modelCalls() - before);
    }

    @Test
    void theModelSeesTheImagesOfTheTurn() {
        chat.answers("a cat");
        chat.post("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"what is it\"},"
                + "{\"type\":\"image_url\",\"image_url\":\"https://x/cat.png\",\"detail\":\"high\"}]}]}");
        var messages = chat.lastModelRequest().path("messages");
        assertEquals("[{\"type\":\"text\",\"text\":\"what is it\"},{\"type\":\"image_url\",\"image_url\":"
                + "{\"url\":\"https://x/cat.png\",\"detail\":\"high\"}}]", messages.get(messages.size() - 1).path("content").toString());
    }

    private static List<String> fieldNames(JsonNode node) {
        var names = new ArrayList<String>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
