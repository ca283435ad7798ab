package dev.caduceus.plugin.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Events the provider emits for what the upstream answers. */
class OpenAiProviderTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ScriptedUpstream upstream = ScriptedUpstream.start();
    private final OutboundClient outbound = Fixtures.outbound();
    private final OpenAiProvider provider = new OpenAiProvider(Fixtures.settings(upstream.baseUrl(), null, true), outbound);

    @AfterEach
    void stop() {
        provider.close();
        outbound.close();
        upstream.close();
    }

    @Test
    void streamsTextAsSeveralDeltasInOrderThenUsageAndStop() throws Exception {
        upstream.enqueue(Turn.text("one two three four five").usage(10, 5));
        var events = Fixtures.run(provider, Fixtures.request(true));
        assertEquals(List.of("one ", "two ", "three ", "four ", "five"), Fixtures.texts(events));
        assertEquals(new ModelEvent.UsageReport(new Usage(10, 5, 15)), events.get(events.size() - 2));
        assertEquals(new ModelEvent.Finish(FinishReason.STOP), events.getLast());
    }

    @Test
    void reasoningTokensAreReadFromTheCompletionTokensDetails() throws Exception {
        upstream.enqueue(Turn.text("42").usage(10, 50, 48));
        var events = Fixtures.run(provider, Fixtures.request(true));
        assertEquals(new ModelEvent.UsageReport(new Usage(10, 50, 60, 48)), events.get(events.size() - 2));
        upstream.enqueue(Turn.text("42").usage(10, 50, 48));
        events = Fixtures.run(provider, Fixtures.request(false));
        assertEquals(new ModelEvent.UsageReport(new Usage(10, 50, 60, 48)), events.get(events.size() - 2));
    }

    @Test
    void nonStreamingEmitsTheTextAsOneDelta() throws Exception {
        upstream.enqueue(Turn.text("Hello there").usage(3, 2));
        var events = Fixtures.run(provider, Fixtures.request(false));
        assertEquals(List.of(new ModelEvent.TextDelta("Hello there"), new ModelEvent.UsageReport(new Usage(3, 2, 5)),
                new ModelEvent.Finish(FinishReason.STOP)), events);
        assertFalse(upstream.chatRequests().getFirst().body().path("stream").asBoolean());
    }

    @Test
    void settingsStreamFalseSendsANonStreamingRequest() throws Exception {
        try (var plain = new OpenAiProvider(Fixtures.settings(upstream.baseUrl(), null, false), outbound)) {
            upstream.enqueue(Turn.text("a b c"));
            assertEquals(List.of("a b c"), Fixtures.texts(Fixtures.run(plain, Fixtures.request(true))));
            assertTrue(upstream.chatRequests().getFirst().body().path("stream_options").isMissingNode());
        }
    }

    @Test
    void assemblesTwoToolCallsWhoseArgumentsAreSplitAcrossChunks() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "add", "{\"a\":1,\"b\":2}"),
                Turn.ToolCall.of("call_2", "add", "{\"a\":3,\"b\":4}")));
        for (boolean stream : new boolean[] {true, false}) {
            if (!stream) upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "add", "{\"a\":1,\"b\":2}"),
                    Turn.ToolCall.of("call_2", "add", "{\"a\":3,\"b\":4}")));
            var events = Fixtures.run(provider, Fixtures.request(stream));
            var calls = events.stream().filter(e -> e instanceof ModelEvent.ToolCall).toList();
            assertEquals(List.of(new ModelEvent.ToolCall("call_1", "add", obj("{\"a\":1,\"b\":2}")),
                    new ModelEvent.ToolCall("call_2", "add", obj("{\"a\":3,\"b\":4}"))), calls);
            assertEquals(new ModelEvent.Finish(FinishReason.TOOL_CALLS), events.getLast());
        }
    }

    @Test
    void givesAMissingCallIdAGeneratedOne() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of(null, "noop", "")));
        var call = (ModelEvent.ToolCall) Fixtures.run(provider, Fixtures.request(true)).getFirst();
        assertTrue(call.id().matches("call_[0-9a-f]{24}"), call.id());
        assertEquals(JSON.createObjectNode(), call.arguments());
    }

    @Test
    void invalidToolArgumentsStillProduceACallCarryingTheRawTextAndTheParserMessage() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("c1", "add", "{\"a\":1,"),
                Turn.ToolCall.of("c2", "add", "[1,2]")));
        var calls = Fixtures.run(provider, Fixtures.request(true)).stream()
                .filter(e -> e instanceof ModelEvent.ToolCall).map(e -> (ModelEvent.ToolCall) e).toList();
        assertEquals(2, calls.size());
        assertEquals("{\"a\":1,", calls.get(0).arguments().path("__invalid_arguments__").asText());
        assertFalse(calls.get(0).arguments().path("__error__").asText().isBlank());
        assertEquals("[1,2]", calls.get(1).arguments().path("__invalid_arguments__").asText());
        assertEquals("expected a JSON object, got array", calls.get(1).arguments().path("__error__").asText());
    }

    @Test
    void reasoningContentBecomesReasoningDeltas() throws Exception {
        upstream.enqueue(Turn.reasoning("let me think").withText("answer"));
        var events = Fixtures.run(provider, Fixtures.request(true));
        assertEquals(List.of(new ModelEvent.ReasoningDelta("let "), new ModelEvent.ReasoningDelta("me "),
                new ModelEvent.ReasoningDelta("think"), new ModelEvent.TextDelta("answer")), events.subList(0, 4));
    }

    @Test
    void thinkBlockSplitAcrossChunksMovesToReasoning() throws Exception {
        upstream.enqueue(Turn.textChunks("<thi", "nk>plan ", "it</th", "ink>\n\nThe ", "answer"));
        var events = Fixtures.run(provider, Fixtures.request(true));
        var reasoning = new StringBuilder();
        events.stream().filter(e -> e instanceof ModelEvent.ReasoningDelta)
                .forEach(e -> reasoning.append(((ModelEvent.ReasoningDelta) e).text()));
        assertEquals("plan it", reasoning.toString());
        assertEquals("The answer", String.join("", Fixtures.texts(events)));
        upstream.enqueue(Turn.text("<think>x</think>y"));
        assertEquals(List.of(new ModelEvent.ReasoningDelta("x"), new ModelEvent.TextDelta("y")),
                Fixtures.run(provider, Fixtures.request(false)).subList(0, 2));
    }

    @Test
    void textThatOnlyLooksLikeATagStaysContent() throws Exception {
        upstream.enqueue(Turn.textChunks("<th", "is is <b>html</b>"));
        assertEquals("<this is <b>html</b>", String.join("", Fixtures.texts(Fixtures.run(provider,
                Fixtures.request(true)))));
    }

    @Test
    void mapsTheScriptedFinishReason() throws Exception {
        upstream.enqueue(Turn.text("cut").finishReason("length"), Turn.text("no").finishReason("content_filter"));
        assertEquals(new ModelEvent.Finish(FinishReason.LENGTH), Fixtures.run(provider, Fixtures.request(true)).getLast());
        assertEquals(new ModelEvent.Finish(FinishReason.CONTENT_FILTER),
                Fixtures.run(provider, Fixtures.request(false)).getLast());
    }

    @Test
    void serverErrorsAndRateLimitsAreRetryableAndNameTheStatus() {
        upstream.enqueue(Turn.error(500, "boom"), Turn.error(429, "slow down").retryAfterSeconds(1));
        var e500 = assertThrows(ModelException.class, () -> Fixtures.run(provider, Fixtures.request(true)));
        assertEquals("Upstream model returned 500: boom", e500.getMessage());
        assertTrue(e500.retryable());
        assertEquals(500, e500.status());
        var e429 = assertThrows(ModelException.class, () -> Fixtures.run(provider, Fixtures.request(true)));
        assertEquals("Upstream model returned 429: slow down", e429.getMessage());
        assertTrue(e429.retryable());
        assertEquals(java.time.Duration.ofSeconds(1), e429.retryAfter().orElseThrow(), "Retry-After is passed on");
        assertTrue(e500.retryAfter().isEmpty());
    }

    @Test
    void unauthorizedIsNotRetryableAndTheKeyIsRedacted() throws Exception {
        try (var keyed = new OpenAiProvider(Fixtures.settings(upstream.baseUrl(), "sk-secret-123", true), outbound)) {
            upstream.enqueue(Turn.error(401, "Incorrect API key provided: sk-secret-123"));
            var e = assertThrows(ModelException.class, () -> Fixtures.run(keyed, Fixtures.request(true)));
            assertFalse(e.retryable());
            assertEquals(401, e.status());
            assertEquals("Upstream model returned 401: Incorrect API key provided: ***", e.getMessage());
        }
    }

    @Test
    void malformedAnswersFailRetryablyBeforeAnyOutput() {
        upstream.enqueue(Turn.malformed(), Turn.malformed());
        var plain = assertThrows(ModelException.class, () -> Fixtures.run(provider, Fixtures.request(false)));
        assertTrue(plain.getMessage().startsWith("Upstream response is not valid JSON"), plain.getMessage());
        assertTrue(plain.retryable());
        var streamed = assertThrows(ModelException.class, () -> Fixtures.run(provider, Fixtures.request(true)));
        assertTrue(streamed.getMessage().startsWith("Upstream sent a malformed stream chunk"), streamed.getMessage());
        assertTrue(streamed.retryable());
    }

    @Test
    void aStreamCutAfterOutputFailsWithoutRetry() {
        upstream.enqueue(Turn.text("one two three four five").cutAfterChunks(3));
        var seen = new java.util.ArrayList<ModelEvent>();
        // A fresh provider: a pooled connection that an earlier test's cut left half-dead would fail
        // before any output and make this test flaky (that case is the retryable one below).
        var fresh = new OpenAiProvider(Fixtures.settings(upstream.baseUrl(), null, true), outbound);
        var e = assertThrows(ModelException.class, () -> fresh.stream(Fixtures.request(true), seen::add,
                Fixtures.NEVER));
        fresh.close();
        assertFalse(e.retryable(), e.getMessage());
        assertTrue(e.getMessage().startsWith("Upstream stream ended unexpectedly"), e.getMessage());
        assertEquals(List.of("one ", "two "), Fixtures.texts(seen));
        assertFalse(seen.stream().anyMatch(ev -> ev instanceof ModelEvent.Finish));
    }

    @Test
    void aStreamCutBeforeOutputIsRetryable() {
        upstream.enqueue(Turn.text("one two").cutAfterChunks(1));
        var e = assertThrows(ModelException.class, () -> Fixtures.run(provider, Fixtures.request(true)));
        assertTrue(e.retryable(), e.getMessage());
    }

    @Test
    void aResponseWithoutChoicesIsRetryable() throws Exception {
        var events = new CallEvents(JSON, new UpstreamErrors(JSON, null), e -> {});
        var raw = "{\"id\":\"x\"}";
        var e = assertThrows(ModelException.class,
                () -> events.completion(Completion.read(Completion.trees(JSON), raw.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                        raw.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertTrue(e.retryable());
        assertTrue(e.getMessage().startsWith("Upstream response has no choices"), e.getMessage());
    }

    @Test
    void connectionRefusedIsRetryableWithStatusZero() throws Exception {
        int port;
        try (var socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        try (var dead = new OpenAiProvider(Fixtures.settings("http://127.0.0.1:" + port + "/v1", null, true), outbound)) {
            var e = assertThrows(ModelException.class, () -> Fixtures.run(dead, Fixtures.request(true)));
            assertTrue(e.retryable());
            assertEquals(0, e.status());
            assertTrue(e.getMessage().startsWith("Upstream model unreachable"), e.getMessage());
        }
    }

    @Test
    void sequentialCallsLeaveNoConnectionInUse() throws Exception {
        upstream.setDefault(Turn.text("again and again"));
        for (int i = 0; i < 200; i++)
            assertEquals(new ModelEvent.Finish(FinishReason.STOP), Fixtures.run(provider, Fixtures.request(i % 2 == 0)).getLast());
        var stats = outbound.poolStats();
        assertEquals(0, stats.stream().mapToInt(s -> s.active()).sum(), stats.toString());
        assertEquals(1, Fixtures.connections(outbound), "one kept connection carried the calls in turn: " + stats);
    }

    @Test
    void unconfiguredProviderRefusesCalls() {
        try (var none = new OpenAiProvider(Fixtures.settings(null, null, true), outbound)) {
            assertFalse(none.configured());
            assertInstanceOf(ModelException.class, assertThrows(ModelException.class,
                    () -> Fixtures.run(none, Fixtures.request(true))));
        }
    }

    private static ObjectNode obj(String json) throws Exception {
        return (ObjectNode) JSON.readTree(json);
    }
}
