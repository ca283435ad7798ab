package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.Turn;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Streaming chat completions on the real host: the frames a real run produces (its tool calls are of
 * a tool no plugin offers, so they fail as unknown, which the progress notices do not show). Frames a
 * real run cannot produce (an interrupted run, calls without ids) are {@link ChatTranslationTest}'s.
 */
class ChatStreamTest {
    private static final String HEAD = "{\"id\":\"chatcmpl-ID\",\"object\":\"chat.completion.chunk\",\"created\":0,"
            + "\"model\":\"hermes-agent\",";
    private static final String USAGE = "{\"prompt_tokens\":1830,\"completion_tokens\":95,\"total_tokens\":1925}";

    private static ChatHost chat;

    @BeforeAll
    static void boot() {
        chat = ChatHost.start();
    }

    @AfterAll
    static void shutDown() {
        if (chat != null) chat.close();
    }

    @BeforeEach
    void reset() {
        chat.reset();
    }

    static String body(boolean includeUsage) {
        return "{\"stream\":true," + (includeUsage ? "\"stream_options\":{\"include_usage\":true}," : "")
                + "\"messages\":[{\"role\":\"user\",\"content\":\"how many files?\"}]}";
    }

    /** Text, one {@code terminal} call ({@code ls}), then the rest of the answer: two model calls. */
    static void oneToolCall(ChatHost host) {
        host.upstream.enqueue(
                Turn.textChunks("Let me look.").withToolCalls(Turn.ToolCall.of("call_1", "terminal", "{\"command\":\"ls\"}")),
                Turn.textChunks(" There are 3 files.").usage(ChatHost.PROMPT_TOKENS, ChatHost.COMPLETION_TOKENS));
    }

    private static List<String> wire(String body, String... headers) {
        var ex = chat.post(body, headers);
        assertEquals(200, ex.status(), ex.body());
        return ChatHost.wire(ex.body());
    }

    @Test
    void framesFollowTheContractExampleWithIncludeUsage() {
        oneToolCall(chat);
        var ex = chat.post(body(true));
        assertEquals(200, ex.status(), ex.body());
        assertTrue(ex.header("X-Hermes-Session-Id").orElseThrow().startsWith("api-"));
        assertTrue(ex.header("Content-Type").orElseThrow().startsWith("text/event-stream"));
        assertEquals(List.of(
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}],\"usage\":null}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me look.\"},\"finish_reason\":null}],\"usage\":null}",
                ": hermes.tool.progress {\"tool\":\"terminal\",\"emoji\":\"💻\",\"label\":\"terminal: ls\",\"toolCallId\":\"call_1\",\"status\":\"running\"}",
                ": hermes.tool.progress {\"tool\":\"terminal\",\"toolCallId\":\"call_1\",\"status\":\"completed\"}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" There are 3 files.\"},\"finish_reason\":null}],\"usage\":null}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":" + USAGE + "}",
                "data: " + HEAD + "\"choices\":[],\"usage\":" + USAGE + "}",
                "data: [DONE]"), ChatHost.wire(ex.body()));
        assertTrue(chat.lastModelRequest().path("stream").asBoolean(), "the run streams its answer to this client");
    }

    @Test
    void withoutIncludeUsageOnlyTheFinishChunkCarriesUsage() {
        oneToolCall(chat);
        assertEquals(List.of(
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me look.\"},\"finish_reason\":null}]}",
                ": hermes.tool.progress {\"tool\":\"terminal\",\"emoji\":\"💻\",\"label\":\"terminal: ls\",\"toolCallId\":\"call_1\",\"status\":\"running\"}",
                ": hermes.tool.progress {\"tool\":\"terminal\",\"toolCallId\":\"call_1\",\"status\":\"completed\"}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" There are 3 files.\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":" + USAGE + "}",
                "data: [DONE]"), wire(body(false)));
    }

    @Test
    void headerTrueTurnsProgressIntoNamedEvents() {
        oneToolCall(chat);
        var lines = wire(body(false), "X-Hermes-Tool-Progress", "true");
        var named = lines.stream().filter(l -> l.startsWith("event: hermes.tool.progress data: ")).toList();
        assertEquals(2, named.size(), lines::toString);
        assertTrue(named.get(0).endsWith("\"status\":\"running\"}"));
        assertTrue(named.get(1).endsWith("\"status\":\"completed\"}"));
        assertTrue(lines.stream().noneMatch(l -> l.startsWith(":")), lines::toString);
    }

    @Test
    void settingOffSendsNoProgressEvenWhenAskedFor() {
        try (var off = ChatHost.start("CADUCEUS__CHAT__TOOL_PROGRESS_EVENTS", "off")) {
            oneToolCall(off);
            var ex = off.post(body(false), "X-Hermes-Tool-Progress", "true");
            var lines = ChatHost.wire(ex.body());
            assertTrue(lines.stream().noneMatch(l -> l.contains("hermes.tool.progress")), lines::toString);
            assertEquals(5, lines.size(), lines::toString);
        }
    }

    @Test
    void settingAlwaysSendsNamedEventsUnlessTheHeaderSaysFalse() {
        try (var always = ChatHost.start("CADUCEUS__CHAT__TOOL_PROGRESS_EVENTS", "always")) {
            oneToolCall(always);
            var events = ChatHost.wire(always.post(body(false)).body());
            assertEquals(2, events.stream().filter(l -> l.startsWith("event: hermes.tool.progress")).count(), events::toString);
            oneToolCall(always);
            // header false means none since chat.tool_progress (it meant comments, which no client shows)
            var forced = ChatHost.wire(always.post(body(false), "X-Hermes-Tool-Progress", "false").body());
            assertTrue(forced.stream().noneMatch(l -> l.contains("hermes.tool.progress")), forced::toString);
            oneToolCall(always);
            var comments = ChatHost.wire(always.post(body(false), "X-Hermes-Tool-Progress", "comments").body());
            assertEquals(2, comments.stream().filter(l -> l.startsWith(": hermes.tool.progress")).count(), comments::toString);
        }
    }

    @Test
    void internalToolsAreNotShown() {
        chat.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("c_internal", "_budget", "{}"),
                Turn.ToolCall.of("c2", "custom", "{}")), Turn.text("x"));
        var progress = wire(body(false)).stream().filter(l -> l.contains("hermes.tool.progress")).toList();
        assertEquals(List.of(": hermes.tool.progress {\"tool\":\"custom\",\"emoji\":\"⚡\",\"label\":\"custom\","
                + "\"toolCallId\":\"c2\",\"status\":\"running\"}",
                ": hermes.tool.progress {\"tool\":\"custom\",\"toolCallId\":\"c2\",\"status\":\"completed\"}"), progress);
    }

    @Test
    void failureFinishChunkCarriesHermesAndError() throws Exception {
        // The text that came with the tool call is what the stream showed when the next call fails for good.
        chat.upstream.enqueue(Turn.textChunks("so far").withToolCalls(Turn.ToolCall.of("call_1", "terminal", "{}"))
                .usage(ChatHost.PROMPT_TOKENS, ChatHost.COMPLETION_TOKENS), Turn.error(400, "down"));
        var ex = chat.post(body(true));
        var lines = ChatHost.wire(ex.body());
        var chunks = ChatHost.chunks(ex.body());
        var finish = chunks.get(chunks.size() - 2);
        assertEquals("error", finish.at("/choices/0/finish_reason").asText(), lines::toString);
        assertEquals("{\"message\":\"Upstream model returned 400: down\",\"type\":\"agent_error\"}",
                finish.get("error").toString());
        assertEquals("{\"completed\":false,\"partial\":false,\"failed\":true,\"error\":\"Upstream model returned 400: down\","
                + "\"error_code\":\"agent_error\"}", finish.get("hermes").toString());
        assertEquals(USAGE, finish.get("usage").toString());
        assertEquals("data: [DONE]", lines.getLast());
    }

    @Test
    void lengthFinishChunkHasHermesButNoErrorKey() throws Exception {
        chat.upstream.enqueue(Turn.text("grace").finishReason("length").usage(ChatHost.PROMPT_TOKENS, ChatHost.COMPLETION_TOKENS));
        var chunks = ChatHost.chunks(chat.post(body(false)).body());
        var finish = chunks.getLast();
        assertEquals("length", finish.at("/choices/0/finish_reason").asText());
        assertFalse(finish.has("error"), finish::toString);
        assertEquals("output_truncated", finish.at("/hermes/error_code").asText());
        assertTrue(finish.at("/hermes/partial").asBoolean());
    }

    @Test
    void stopFinishChunkHasNeitherHermesNorError() throws Exception {
        oneToolCall(chat);
        var finish = ChatHost.chunks(chat.post(body(false)).body()).getLast();
        assertEquals("stop", finish.at("/choices/0/finish_reason").asText());
        assertFalse(finish.has("hermes"));
        assertFalse(finish.has("error"));
    }

    @Test
    void clientDisconnectCancelsTheRun() throws Exception {
        var held = new HeldTurn(Turn.text("a b"));
        chat.upstream.enqueue(held);
        try (var stream = chat.http().postSse(ChatHost.PATH, body(false))) {
            assertEquals(200, stream.status());
            var role = stream.next();
            assertEquals("assistant", role.data().at("/choices/0/delta/role").asText());
            held.awaitArrival();
            assertEquals(1, chat.activeRuns());
            stream.close(); // the client leaves while the model thinks
            chat.awaitNoActiveRun("the run is cancelled when its client leaves");
        } finally {
            held.release();
        }
    }

    @Test
    void streamingIgnoresTheIdempotencyKey() {
        var key = "k-" + UUID.randomUUID();
        chat.answers("one").answers("two");
        int before = chat.modelCalls();
        wire(body(false), "Idempotency-Key", key);
        wire(body(false), "Idempotency-Key", key);
        assertEquals(2, chat.modelCalls() - before);
    }
}
