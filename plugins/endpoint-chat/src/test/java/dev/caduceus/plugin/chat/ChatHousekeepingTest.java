package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.testkit.FrontendFixtures;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The chat handler's routing of housekeeping requests to one plain model call. */
class ChatHousekeepingTest {
    private static final String TITLE = FrontendFixtures.load("open-webui-0.9.5.jsonl").get(2).path("body").toString();
    private static final String LOBE_TITLE = FrontendFixtures.load("lobe-chat.jsonl").get(1).path("body").toString();

    private final ScriptedModels models = ScriptedModels.answering(new ModelEvent.TextDelta("{\"title\": \"Hi\"}"),
            new ModelEvent.UsageReport(new Usage(50, 5, 55)), new ModelEvent.Finish(FinishReason.STOP));

    @Test
    void aTitleRequestIsOnePlainCallAndNoRun() throws Exception {
        var chat = new ChatFixture(Map.of(), Map.of("model.housekeeping_model", "cheap-model"), models);
        var ex = chat.post(TITLE);
        assertEquals(200, ex.status(), String.valueOf(ex.responseBody()));
        assertEquals("true", ex.responseHeader("X-Hermes-Housekeeping").orElse(null));
        assertTrue(ex.responseHeader("X-Hermes-Session-Id").isEmpty(), "no session");
        assertEquals("chat.completion", ex.responseBody().path("object").asText());
        assertEquals("{\"title\": \"Hi\"}", ex.responseBody().path("choices").get(0).path("message").path("content").asText());
        assertEquals(55, ex.responseBody().path("usage").path("total_tokens").asInt());
        assertEquals(List.of(), chat.runs.requests(), "no agent run");
        var call = models.requests().getFirst();
        assertEquals("cheap-model", call.model(), "model.housekeeping_model");
        assertEquals(List.of(), call.tools());
        assertEquals(1, call.messages().size(), "only the client's message");
        assertEquals("user", call.messages().getFirst().role());
        assertTrue(!call.stream(), "the client asked for JSON");
    }

    @Test
    void aStreamedHousekeepingRequestIsAnsweredAsAChunkStream() throws Exception {
        var chat = new ChatFixture(Map.of(), Map.of(), models);
        var ex = chat.post(LOBE_TITLE);
        var wire = ChatFixture.wire(ex.stream());
        assertEquals("true", ex.responseHeader("X-Hermes-Housekeeping").orElse(null));
        assertTrue(wire.getFirst().contains("\"role\":\"assistant\""), wire.toString());
        assertTrue(wire.get(1).contains("\"content\":\"{\\\"title\\\": \\\"Hi\\\"}\""), wire.toString());
        assertTrue(wire.get(2).contains("\"finish_reason\":\"stop\""), wire.toString());
        assertEquals("data: [DONE]", wire.getLast());
        var call = models.requests().getFirst();
        assertEquals("system", call.messages().getFirst().role(), "the client's own system prompt, nothing else");
        assertTrue(call.messages().getFirst().text().startsWith("You are a professional conversation summarizer"));
        assertTrue(call.stream());
        assertEquals("scripted-model", call.model(), "without model.housekeeping_model, the deployment's own");
        assertEquals(List.of(), chat.runs.requests());
    }

    @Test
    void atTheConcurrencyCapHousekeepingStillGetsAnAnswerAndAConversationGetsThe429() throws Exception {
        var chat = new ChatFixture(Map.of(), Map.of(), models);
        chat.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.AT_CAPACITY, "Too many concurrent runs (max 1)"));
        assertEquals(200, chat.post(TITLE).status());
        assertEquals(429, chat.post(ChatFixture.USER_HI).status());
        assertEquals(429, chat.post("{\"messages\":").status(), "a bad body at the cap still gets the 429 first");
        assertEquals(1, models.requests().size());
    }

    @Test
    void whileDrainingHousekeepingIsRefusedLikeEverythingElse() throws Exception {
        var chat = new ChatFixture(Map.of(), Map.of(), models);
        chat.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.DRAINING, "draining"));
        assertEquals(503, chat.post(TITLE).status());
        assertEquals(List.of(), models.requests());
    }

    @Test
    void agentModeRunsHousekeepingAsAnAgentTurn() throws Exception {
        var chat = new ChatFixture(Map.of(), Map.of("chat.housekeeping", "agent"), models).answers("A title");
        var ex = chat.post(TITLE);
        assertEquals(200, ex.status());
        assertTrue(ex.responseHeader("X-Hermes-Housekeeping").isEmpty());
        assertEquals(1, chat.runs.requests().size());
        assertEquals(List.of(), models.requests());
    }

    @Test
    void aHostWithoutPlainCallsRunsHousekeepingAsAnAgentTurn() throws Exception {
        var chat = new ChatFixture(Map.of()).answers("A title"); // no models(): an older host, or proxy mode
        assertEquals(200, chat.post(TITLE).status());
        assertEquals(1, chat.runs.requests().size());
    }

    @Test
    void anUpstreamFailureIsTheUsual502() throws Exception {
        var failing = new ScriptedModels(List.of(), new ModelException("invalid api key", false, 401, null));
        var ex = new ChatFixture(Map.of(), Map.of(), failing).post(TITLE);
        assertEquals(502, ex.status());
        assertEquals("agent_incomplete", ex.responseBody().path("error").path("code").asText());
        assertEquals("Upstream model returned 401: invalid api key", ex.responseBody().path("error").path("message").asText());
    }

    @Test
    void aClientThatLeavesDuringTheCallGetsNoAnswer() throws Exception {
        var chat = new ChatFixture(Map.of(), Map.of(), null);
        var leaving = new java.util.concurrent.atomic.AtomicReference<dev.caduceus.testkit.FakeExchange>();
        var gone = new ScriptedModels(List.of(new ModelEvent.TextDelta("{\"title\": \"Hi\"}")), null) {
            @Override
            public synchronized void stream(dev.caduceus.spi.model.ModelRequest request,
                                            java.util.function.Consumer<ModelEvent> sink,
                                            dev.caduceus.spi.tool.Cancellation cancel) throws ModelException {
                leaving.get().disconnect();
                assertTrue(cancel.isCancelled(), "the client leaving cancels the call");
                super.stream(request, sink, cancel);
            }
        };
        chat = new ChatFixture(Map.of(), Map.of(), gone);
        var ex = chat.exchange(TITLE);
        leaving.set(ex);
        ex.call(chat.handler);
        assertEquals(204, ex.status(), "nothing was answered");
    }
}
