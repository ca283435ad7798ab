package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.FrontendFixtures;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The chat handler's routing of housekeeping requests to one plain model call, on the real host: the
 * call is the model request without the agent's system prompt and tools; a host without plain calls
 * (proxy mode) runs it as an agent turn. A client leaving during the call is {@link HousekeepingClientLeavesTest}'s.
 */
class ChatHousekeepingTest {
    private static final String TITLE = FrontendFixtures.load("open-webui-0.9.5.jsonl").get(2).path("body").toString();
    private static final String LOBE_TITLE = FrontendFixtures.load("lobe-chat.jsonl").get(1).path("body").toString();
    private static final Turn TITLE_ANSWER = Turn.textChunks("{\"title\": \"Hi\"}").usage(50, 5);

    /** At most one run at a time, so that a held run puts the host at capacity. */
    private static ChatHost chat;

    @BeforeAll
    static void boot() {
        chat = ChatHost.start("CADUCEUS__MODEL__HOUSEKEEPING_MODEL", "cheap-model",
                "CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "1");
    }

    @AfterAll
    static void shutDown() {
        if (chat != null) chat.close();
    }

    @BeforeEach
    void reset() {
        chat.reset();
    }

    @Test
    void aTitleRequestIsOnePlainCallAndNoRun() {
        chat.upstream.enqueue(TITLE_ANSWER);
        var ex = chat.post(TITLE);
        assertEquals(200, ex.status(), ex.body());
        assertEquals("true", ex.header("X-Hermes-Housekeeping").orElse(null));
        assertTrue(ex.header("X-Hermes-Session-Id").isEmpty(), "no session");
        assertEquals("chat.completion", ex.json().path("object").asText());
        assertEquals("{\"title\": \"Hi\"}", ex.json().path("choices").get(0).path("message").path("content").asText());
        assertEquals(55, ex.json().path("usage").path("total_tokens").asInt());
        var call = chat.lastModelRequest();
        assertEquals("cheap-model", call.path("model").asText(), "model.housekeeping_model");
        assertTrue(call.path("tools").isMissingNode(), "no tools");
        assertEquals(1, call.path("messages").size(), "only the client's message, no agent system prompt: no run");
        assertEquals("user", call.path("messages").get(0).path("role").asText());
        assertTrue(!call.path("stream").asBoolean(), "the client asked for JSON");
    }

    @Test
    void aStreamedHousekeepingRequestIsAnsweredAsAChunkStream() {
        try (var plain = ChatHost.start()) { // without model.housekeeping_model
            plain.upstream.enqueue(TITLE_ANSWER);
            var ex = plain.post(LOBE_TITLE);
            var wire = ChatHost.wire(ex.body());
            assertEquals("true", ex.header("X-Hermes-Housekeeping").orElse(null));
            assertTrue(wire.getFirst().contains("\"role\":\"assistant\""), wire.toString());
            assertTrue(wire.get(1).contains("\"content\":\"{\\\"title\\\": \\\"Hi\\\"}\""), wire.toString());
            assertTrue(wire.get(2).contains("\"finish_reason\":\"stop\""), wire.toString());
            assertEquals("data: [DONE]", wire.getLast());
            var call = plain.lastModelRequest();
            var first = call.path("messages").get(0);
            assertEquals("system", first.path("role").asText(), "the client's own system prompt, nothing else");
            assertTrue(first.path("content").asText().startsWith("You are a professional conversation summarizer"));
            assertTrue(call.path("stream").asBoolean());
            assertEquals(ScriptedUpstream.MODEL, call.path("model").asText(), "without model.housekeeping_model, the deployment's own");
        }
    }

    @Test
    void atTheConcurrencyCapHousekeepingStillGetsAnAnswerAndAConversationGetsThe429() throws Exception {
        var held = new HeldTurn(Turn.text("busy"));
        chat.upstream.enqueue(held);
        var busy = Thread.ofVirtual().start(() -> chat.post(ChatHost.USER_HI));
        try {
            held.awaitArrival();
            chat.upstream.enqueue(TITLE_ANSWER);
            int before = chat.modelCalls();
            assertEquals(200, chat.post(TITLE).status());
            assertEquals(429, chat.post(ChatHost.USER_HI).status());
            assertEquals(429, chat.post("{\"messages\":").status(), "a bad body at the cap still gets the 429 first");
            assertEquals(1, chat.modelCalls() - before);
        } finally {
            held.release();
            busy.join();
        }
    }

    @Test
    void whileDrainingHousekeepingIsRefusedLikeEverythingElse() throws Exception {
        var draining = ChatHost.start();
        var ex = draining.answerWhileDraining(TITLE);
        assertEquals(503, ex.statusCode());
        assertEquals(1, draining.modelCalls(), "only the run that kept it draining reached the model");
    }

    @Test
    void agentModeRunsHousekeepingAsAnAgentTurn() {
        try (var agent = ChatHost.start("CADUCEUS__CHAT__HOUSEKEEPING", "agent")) {
            agent.answers("A title");
            var ex = agent.post(TITLE);
            assertEquals(200, ex.status(), ex.body());
            assertTrue(ex.header("X-Hermes-Housekeeping").isEmpty());
            assertEquals(1, agent.modelCalls());
            assertTrue(agent.lastSystemPrompt().length() > 0, "the agent's system prompt: a run");
            assertEquals(2, agent.lastModelRequest().path("messages").size());
        }
    }

    @Test
    void aHostWithoutPlainCallsRunsHousekeepingAsAnAgentTurn() {
        // Proxy mode: the relay runtime sends every turn to a remote agent server (the upstream plays
        // it) and the host has no provider, hence no plain model calls.
        try (var remote = ScriptedUpstream.start();
             var proxy = TestHost.builder().plugins("endpoint-chat", "relay")
                     .env("GATEWAY_PROXY_URL", "http://127.0.0.1:" + remote.port()).start()) {
            remote.enqueue(Turn.text("A title"));
            var ex = proxy.http().post(ChatHost.PATH, TITLE);
            assertEquals(200, ex.status(), ex.body());
            assertTrue(ex.header("X-Hermes-Housekeeping").isEmpty(), "not a plain call");
            assertEquals("A title", ex.json().path("choices").get(0).path("message").path("content").asText());
            assertEquals(1, remote.chatRequests().size(), "one agent turn, relayed");
        }
    }

    @Test
    void anUpstreamFailureIsTheUsual502() {
        chat.upstream.enqueue(Turn.error(401, "invalid api key"));
        var ex = chat.post(TITLE);
        assertEquals(502, ex.status(), ex.body());
        assertEquals("agent_incomplete", ex.error().path("code").asText());
        assertEquals("Upstream model returned 401: invalid api key", ex.error().path("message").asText());
    }
}
