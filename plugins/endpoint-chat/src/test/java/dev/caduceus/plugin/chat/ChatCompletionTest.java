package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.testkit.Eventually;
import dev.caduceus.testkit.ScriptedRuns;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChatCompletionTest {
    private final ChatFixture chat = new ChatFixture();

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

    @Test
    void successAnswersAChatCompletionEchoingTheModel() throws Exception {
        chat.answers("There are 3 files in the workspace.");
        var ex = chat.post(CONVERSATION, "X-Hermes-Session-Key", "agent:main:webui:dm:user-42");
        assertEquals(200, ex.status());
        var body = ex.responseBody();
        assertTrue(body.get("id").asText().matches("chatcmpl-[0-9a-f]{29}"), body.get("id").asText());
        var expected = chat.json("""
                {"id":"ID","object":"chat.completion","created":1768467600,"model":"gpt-4o",
                 "choices":[{"index":0,"message":{"role":"assistant","content":"There are 3 files in the workspace.","refusal":null},"logprobs":null,"finish_reason":"stop"}],
                 "usage":{"prompt_tokens":1830,"completion_tokens":95,"total_tokens":1925}}""");
        ((ObjectNode) expected).put("id", body.get("id").asText());
        assertEquals(expected.toString(), body.toString()); // also checks key order
        assertEquals(List.of("id", "object", "created", "model", "choices", "usage"), fieldNames(body));
        assertEquals(Optional.of(ChatHandler.derivedSessionId(ChatRequest.parse(chat.json(CONVERSATION), "x"))),
                ex.responseHeader("X-Hermes-Session-Id"));
        assertEquals(Optional.of("agent:main:webui:dm:user-42"), ex.responseHeader("X-Hermes-Session-Key"));
        assertFalse(ex.responseHeader("X-Hermes-Completed").isPresent());
    }

    @Test
    void absentModelEchoesTheAdvertisedName() throws Exception {
        chat.answers("hello");
        assertEquals("hermes-agent", chat.post(ChatFixture.USER_HI).responseBody().get("model").asText());
        assertNull(chat.lastRequest().model());
    }

    @Test
    void anotherModelNameGoesUpstreamOnlyWithProviderOrDirectModelRequests() throws Exception {
        chat.answers("ok");
        chat.post("{\"model\":\"gpt-x\",\"provider\":\"openai\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertEquals("gpt-x", chat.lastRequest().model());

        var direct = new ChatFixture(Map.of("model.direct_model_requests", "true"));
        direct.answers("ok").answers("ok");
        direct.post("{\"model\":\"gpt-y\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertEquals("gpt-y", direct.lastRequest().model());
        direct.post("{\"model\":\"hermes-agent\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertNull(direct.lastRequest().model(), "the advertised name means the configured model");
    }

    @Test
    void runRequestCarriesSystemTextHistoryAndOptions() throws Exception {
        chat.answers("ok");
        chat.post(CONVERSATION, "X-Hermes-Session-Key", "scope-1");
        var run = chat.lastRequest();
        assertNull(run.model(), "other model names are ignored on chat");
        assertEquals("Be brief.\nUse metric units.", run.instructions());
        assertEquals(List.of(Message.user("first question"), Message.assistant("first answer"),
                Message.user("How many files?")), run.messages());
        assertEquals("scope-1", run.sessionKey());
        assertEquals(Map.of("source", "chat"), run.metadata());
        assertFalse(run.stream(), "nobody reads a non-streaming answer while it is written");
        assertEquals("high", run.options().reasoningEffort());
        assertEquals("flex", run.options().extra().get("service_tier").asText());
        assertFalse(run.options().extra().has("other"));
    }

    @Test
    void derivedSessionIdHashesSystemTextAndFirstUserText() throws Exception {
        chat.answers("ok");
        var ex = chat.post(CONVERSATION);
        var digest = MessageDigest.getInstance("SHA-256")
                .digest("Be brief.\nUse metric units.\nfirst question".getBytes(StandardCharsets.UTF_8));
        var expected = "api-" + HexFormat.of().formatHex(digest).substring(0, 16);
        assertEquals(Optional.of(expected), ex.responseHeader("X-Hermes-Session-Id"));
        assertEquals(expected, chat.lastRequest().sessionId());
        assertTrue(chat.sessions.reads().isEmpty(), "the body history is authoritative without the header");
    }

    @Test
    void sessionHeaderReplacesTheBodyHistoryWithTheTranscript() throws Exception {
        var stored = List.of(Message.user("earlier"), Message.assistant("stored answer"));
        chat.sessions.put("chat-7", stored);
        chat.answers("ok");
        var ex = chat.post(CONVERSATION, "X-Hermes-Session-Id", "chat-7");
        assertEquals(Optional.of("chat-7"), ex.responseHeader("X-Hermes-Session-Id"));
        var run = chat.lastRequest();
        assertEquals("chat-7", run.sessionId());
        assertEquals(List.of(stored.get(0), stored.get(1), Message.user("How many files?")), run.messages());
    }

    @Test
    void unknownSessionIdStartsAnEmptySession() throws Exception {
        chat.answers("ok");
        chat.post(CONVERSATION, "X-Hermes-Session-Id", "new-session");
        assertEquals(List.of(Message.user("How many files?")), chat.lastRequest().messages());
    }

    @Test
    void iterationLimitIsASoftPartialWithFinishReasonLength() throws Exception {
        chat.ends(StopReason.ITERATION_LIMIT, "Here is what I found so far.", "output_truncated",
                "Reached the iteration limit (90)");
        var ex = chat.post(ChatFixture.USER_HI);
        assertEquals(200, ex.status());
        var body = ex.responseBody();
        assertEquals("length", body.at("/choices/0/finish_reason").asText());
        assertEquals("Here is what I found so far.", body.at("/choices/0/message/content").asText());
        assertEquals(chat.json("""
                {"completed":false,"partial":true,"failed":false,"error":"Reached the iteration limit (90)","error_code":"output_truncated"}"""),
                body.get("hermes"));
        assertEquals(Optional.of("false"), ex.responseHeader("X-Hermes-Completed"));
        assertEquals(Optional.of("true"), ex.responseHeader("X-Hermes-Partial"));
        assertEquals(Optional.of("Reached the iteration limit (90)"), ex.responseHeader("X-Hermes-Error"));
    }

    @Test
    void failureWithTextSoFarIsA200WithFinishReasonError() throws Exception {
        chat.ends(StopReason.UPSTREAM_ERROR, "partial text", "agent_error", "Upstream model returned 500: " + "x".repeat(300));
        var ex = chat.post(ChatFixture.USER_HI);
        assertEquals(200, ex.status());
        assertEquals("error", ex.responseBody().at("/choices/0/finish_reason").asText());
        assertEquals("agent_error", ex.responseBody().at("/hermes/error_code").asText());
        assertTrue(ex.responseBody().at("/hermes/failed").asBoolean());
        assertEquals(200, ex.responseHeader("X-Hermes-Error").orElseThrow().length());
        assertEquals(Optional.of("false"), ex.responseHeader("X-Hermes-Partial"));
    }

    @Test
    void hardFailureIs502AgentIncompleteWithTheHermesObject() throws Exception {
        chat.ends(StopReason.UPSTREAM_ERROR, null, "agent_error", "Upstream model returned 401: invalid api key");
        var ex = chat.post(ChatFixture.USER_HI, "X-Hermes-Session-Id", "s1");
        assertEquals(502, ex.status());
        assertEquals(chat.json("""
                {"error":{"message":"Upstream model returned 401: invalid api key","type":"server_error","param":null,"code":"agent_incomplete",
                 "hermes":{"completed":false,"partial":false,"failed":true}}}"""), ex.responseBody());
        assertEquals(Optional.of("false"), ex.responseHeader("X-Hermes-Completed"));
        assertEquals(Optional.of("false"), ex.responseHeader("X-Hermes-Partial"));
        assertEquals(Optional.of("s1"), ex.responseHeader("X-Hermes-Session-Id"));
        assertEquals(Optional.of("false"), ex.responseHeader("x-should-retry"));
    }

    @Test
    void contextLengthWithoutTextIsAHardFailureMarkedPartial() throws Exception {
        chat.ends(StopReason.CONTEXT_LENGTH, null, "output_truncated", "context too long");
        var ex = chat.post(ChatFixture.USER_HI);
        assertEquals(502, ex.status());
        assertEquals(Optional.of("true"), ex.responseHeader("X-Hermes-Partial"));
        assertTrue(ex.responseBody().at("/error/hermes/partial").asBoolean());
    }

    @Test
    void clientDisconnectWhileWaitingCancelsTheRun() throws Exception {
        chat.runs.script(ScriptedRuns.Script.hanging());
        var ex = chat.exchange(ChatFixture.USER_HI);
        var thread = Thread.ofVirtual().start(() -> {
            try {
                ex.call(chat.handler);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        Eventually.await(Duration.ofSeconds(5), "the handler waits for the run", ex::watchesClientGone);
        ex.disconnect();
        thread.join(5_000);
        assertFalse(thread.isAlive());
        assertEquals(1, chat.runs.cancellations().size());
        assertEquals(ChatStream.CANCEL_REASON, chat.runs.cancellations().getFirst().reason());
    }

    @Test
    void idempotencyKeyReplaysTheResultWithANewId() throws Exception {
        chat.answers("once");
        var first = chat.post(CONVERSATION, "Idempotency-Key", "k1");
        var second = chat.post(CONVERSATION, "Idempotency-Key", "k1");
        assertEquals(1, chat.runs.requests().size());
        assertEquals("once", second.responseBody().at("/choices/0/message/content").asText());
        assertNotEquals(first.responseBody().get("id"), second.responseBody().get("id"));
    }

    @Test
    void idempotencyFingerprintMismatchRunsAgain() throws Exception {
        chat.answers("a");
        chat.post(ChatFixture.USER_HI, "Idempotency-Key", "k1");
        chat.post("{\"messages\":[{\"role\":\"user\",\"content\":\"bye\"}]}", "Idempotency-Key", "k1");
        chat.post("{\"messages\":[{\"role\":\"user\",\"content\":\"bye\"}]}", "Idempotency-Key", "k1",
                "X-Hermes-Session-Key", "other-scope");
        chat.post("{\"messages\":[{\"role\":\"user\",\"content\":\"bye\"}]}", "Idempotency-Key", "k1",
                "X-Hermes-Session-Key", "other-scope");
        assertEquals(3, chat.runs.requests().size());
    }

    @Test
    void structuredFailuresAreReplayedToo() throws Exception {
        chat.ends(StopReason.UPSTREAM_ERROR, null, "agent_error", "boom");
        assertEquals(502, chat.post(ChatFixture.USER_HI, "Idempotency-Key", "k").status());
        assertEquals(502, chat.post(ChatFixture.USER_HI, "Idempotency-Key", "k").status());
        assertEquals(1, chat.runs.requests().size());
    }

    @Test
    void withoutAKeyEveryRequestRuns() throws Exception {
        chat.answers("a");
        chat.post(ChatFixture.USER_HI);
        chat.post(ChatFixture.USER_HI);
        assertEquals(2, chat.runs.requests().size());
    }

    @Test
    void runRequestKeepsImagesOfTheTurn() throws Exception {
        chat.answers("a cat");
        chat.post("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"what is it\"},"
                + "{\"type\":\"image_url\",\"image_url\":\"https://x/cat.png\",\"detail\":\"high\"}]}]}");
        assertEquals(List.of(new ContentPart.Text("what is it"), new ContentPart.ImageUrl("https://x/cat.png", "high")),
                chat.lastRequest().messages().getLast().content());
    }

    private static List<String> fieldNames(JsonNode node) {
        var names = new ArrayList<String>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
