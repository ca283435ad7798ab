package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.testkit.Eventually;
import dev.caduceus.testkit.RecordingEventStream;
import dev.caduceus.testkit.ScriptedRuns;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChatStreamTest {
    private static final String HEAD = "{\"id\":\"chatcmpl-ID\",\"object\":\"chat.completion.chunk\",\"created\":1768467600,"
            + "\"model\":\"hermes-agent\",";
    private static final String USAGE = "{\"prompt_tokens\":1830,\"completion_tokens\":95,\"total_tokens\":1925}";

    private static String body(boolean includeUsage) {
        return "{\"stream\":true," + (includeUsage ? "\"stream_options\":{\"include_usage\":true}," : "")
                + "\"messages\":[{\"role\":\"user\",\"content\":\"how many files?\"}]}";
    }

    private static RunEvent.ToolCallStarted terminal(String id) {
        return new RunEvent.ToolCallStarted(id, "terminal", JsonNodeFactory.instance.objectNode().put("command", "ls"),
                "ls", "💻");
    }

    private static RunEvent.ToolCallFinished done(String id, String tool) {
        return new RunEvent.ToolCallFinished(id, tool, 12, false, "a b c");
    }

    private static ScriptedRuns.Script oneToolCall() {
        return ScriptedRuns.Script.of(RunResult.completed("Let me look. There are 3 files.", ChatFixture.USAGE, List.of()),
                new RunEvent.Started("m"), new RunEvent.TextDelta("Let me look."), terminal("call_1"),
                done("call_1", "terminal"), new RunEvent.UsageReported(ChatFixture.USAGE, ChatFixture.USAGE),
                new RunEvent.TextDelta(" There are 3 files."));
    }

    @Test
    void framesFollowTheContractExampleWithIncludeUsage() throws Exception {
        var chat = new ChatFixture();
        chat.runs.script(oneToolCall());
        var ex = chat.post(body(true));
        assertEquals(200, ex.status());
        assertTrue(ex.responseHeader("X-Hermes-Session-Id").orElseThrow().startsWith("api-"));
        assertEquals(List.of(
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}],\"usage\":null}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me look.\"},\"finish_reason\":null}],\"usage\":null}",
                ": hermes.tool.progress {\"tool\":\"terminal\",\"emoji\":\"💻\",\"label\":\"terminal: ls\",\"toolCallId\":\"call_1\",\"status\":\"running\"}",
                ": hermes.tool.progress {\"tool\":\"terminal\",\"toolCallId\":\"call_1\",\"status\":\"completed\"}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" There are 3 files.\"},\"finish_reason\":null}],\"usage\":null}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":" + USAGE + "}",
                "data: " + HEAD + "\"choices\":[],\"usage\":" + USAGE + "}",
                "data: [DONE]"), ChatFixture.wire(ex.stream()));
        assertTrue(ex.stream().closed());
        assertTrue(chat.lastRequest().stream(), "the run streams its answer to this client");
    }

    @Test
    void withoutIncludeUsageOnlyTheFinishChunkCarriesUsage() throws Exception {
        var chat = new ChatFixture();
        chat.runs.script(oneToolCall());
        var ex = chat.post(body(false));
        var wire = ChatFixture.wire(ex.stream());
        assertEquals(List.of(
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me look.\"},\"finish_reason\":null}]}",
                ": hermes.tool.progress {\"tool\":\"terminal\",\"emoji\":\"💻\",\"label\":\"terminal: ls\",\"toolCallId\":\"call_1\",\"status\":\"running\"}",
                ": hermes.tool.progress {\"tool\":\"terminal\",\"toolCallId\":\"call_1\",\"status\":\"completed\"}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" There are 3 files.\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":" + USAGE + "}",
                "data: [DONE]"), wire);
    }

    @Test
    void headerTrueTurnsProgressIntoNamedEvents() throws Exception {
        var chat = new ChatFixture();
        chat.runs.script(oneToolCall());
        var frames = chat.post(body(false), "X-Hermes-Tool-Progress", "true").stream().frames();
        var named = frames.stream().filter(f -> "hermes.tool.progress".equals(f.name())).toList();
        assertEquals(2, named.size());
        assertEquals("running", named.get(0).data().get("status").asText());
        assertEquals("completed", named.get(1).data().get("status").asText());
        assertTrue(frames.stream().noneMatch(f -> f.kind().equals("comment")));
    }

    @Test
    void settingOffSendsNoProgressEvenWhenAskedFor() throws Exception {
        var chat = new ChatFixture(Map.of("chat.tool_progress_events", "off"));
        chat.runs.script(oneToolCall());
        var wire = ChatFixture.wire(chat.post(body(false), "X-Hermes-Tool-Progress", "true").stream());
        assertTrue(wire.stream().noneMatch(l -> l.contains("hermes.tool.progress")), wire::toString);
        assertEquals(5, wire.size());
    }

    @Test
    void settingAlwaysSendsNamedEventsUnlessTheHeaderSaysFalse() throws Exception {
        var chat = new ChatFixture(Map.of("chat.tool_progress_events", "always"));
        chat.runs.script(oneToolCall());
        var always = chat.post(body(false)).stream().frames();
        assertEquals(2, always.stream().filter(f -> "hermes.tool.progress".equals(f.name())).count());
        chat.runs.script(oneToolCall());
        // header false means none since chat.tool_progress (it meant comments, which no client shows)
        var forced = ChatFixture.wire(chat.post(body(false), "X-Hermes-Tool-Progress", "false").stream());
        assertTrue(forced.stream().noneMatch(l -> l.contains("hermes.tool.progress")), forced::toString);
        chat.runs.script(oneToolCall());
        var comments = ChatFixture.wire(chat.post(body(false), "X-Hermes-Tool-Progress", "comments").stream());
        assertEquals(2, comments.stream().filter(l -> l.startsWith(": hermes.tool.progress")).count());
    }

    @Test
    void internalToolsCallsWithoutIdsAndUnannouncedCompletionsAreNotShown() throws Exception {
        var chat = new ChatFixture();
        chat.runs.script(ScriptedRuns.Script.of(RunResult.completed("x", ChatFixture.USAGE, List.of()),
                new RunEvent.ToolCallStarted("c_internal", "_budget", null, null, null), done("c_internal", "_budget"),
                new RunEvent.ToolCallStarted("", "terminal", null, "ls", "💻"), done("", "terminal"),
                done("never_started", "terminal"),
                new RunEvent.ToolCallStarted("c2", "custom", null, null, null)));
        var wire = ChatFixture.wire(chat.post(body(false)).stream());
        var progress = wire.stream().filter(l -> l.contains("hermes.tool.progress")).toList();
        assertEquals(List.of(": hermes.tool.progress {\"tool\":\"custom\",\"emoji\":\"⚡\",\"label\":\"custom\","
                + "\"toolCallId\":\"c2\",\"status\":\"running\"}"), progress);
    }

    @Test
    void failureFinishChunkCarriesHermesAndError() throws Exception {
        var chat = new ChatFixture();
        chat.runs.script(ScriptedRuns.Script.of(RunResult.of(StopReason.UPSTREAM_ERROR, "so far", ChatFixture.USAGE,
                "agent_error", "Upstream model returned 500: down", List.of()), new RunEvent.TextDelta("so far")));
        var frames = chat.post(body(true)).stream().frames();
        var finish = frames.get(frames.size() - 3).data();
        assertEquals("error", finish.at("/choices/0/finish_reason").asText());
        assertEquals("{\"message\":\"Upstream model returned 500: down\",\"type\":\"agent_error\"}",
                finish.get("error").toString());
        assertEquals("{\"completed\":false,\"partial\":false,\"failed\":true,\"error\":\"Upstream model returned 500: down\","
                + "\"error_code\":\"agent_error\"}", finish.get("hermes").toString());
        assertEquals(USAGE, finish.get("usage").toString());
        assertEquals("[DONE]", frames.getLast().text());
    }

    @Test
    void lengthFinishChunkHasHermesButNoErrorKey() throws Exception {
        var chat = new ChatFixture();
        chat.runs.script(ScriptedRuns.Script.of(RunResult.of(StopReason.ITERATION_LIMIT, "grace", ChatFixture.USAGE,
                "output_truncated", "Reached the iteration limit (90)", List.of()), new RunEvent.TextDelta("grace")));
        var frames = chat.post(body(false)).stream().frames();
        var finish = frames.get(frames.size() - 2).data();
        assertEquals("length", finish.at("/choices/0/finish_reason").asText());
        assertFalse(finish.has("error"), finish::toString);
        assertEquals("output_truncated", finish.at("/hermes/error_code").asText());
        assertTrue(finish.at("/hermes/partial").asBoolean());
    }

    @Test
    void stopFinishChunkHasNeitherHermesNorError() throws Exception {
        var chat = new ChatFixture();
        chat.runs.script(oneToolCall());
        var frames = chat.post(body(false)).stream().frames();
        var finish = frames.get(frames.size() - 2).data();
        assertFalse(finish.has("hermes"));
        assertFalse(finish.has("error"));
    }

    @Test
    void agentCrashEndsWithAnErrorFinishChunkWithoutUsage() throws Exception {
        var chat = new ChatFixture();
        chat.runs.script(new ScriptedRuns.Script(List.of(ScriptedRuns.Step.of(new RunEvent.TextDelta("half")),
                ScriptedRuns.Step.of(new RunEvent.Interrupted("Process ended"))),
                RunResult.of(StopReason.INTERNAL_ERROR, null, Usage.ZERO, "internal_error", "x", List.of()), false));
        var wire = ChatFixture.wire(chat.post(body(false)).stream());
        assertEquals("data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"error\"}],"
                + "\"error\":{\"message\":\"Process ended\",\"type\":\"agent_error\"}}", wire.get(2));
        assertEquals("data: [DONE]", wire.getLast());
    }

    @Test
    void clientDisconnectCancelsTheRun() throws Exception {
        var chat = new ChatFixture();
        chat.runs.script(ScriptedRuns.Script.hanging(new RunEvent.TextDelta("a"), new RunEvent.TextDelta("b")));
        var ex = chat.exchange(body(false)).eventStream(new RecordingEventStream().disconnectAfter(2));
        ex.call(chat.handler);
        assertEquals(1, chat.runs.cancellations().size());
        assertEquals(ChatStream.CANCEL_REASON, chat.runs.cancellations().getFirst().reason());
        assertEquals(2, ex.stream().frames().size());
    }

    @Test
    void disconnectReportedByTheHostCancelsTheRun() throws Exception {
        var chat = new ChatFixture();
        chat.runs.script(ScriptedRuns.Script.hanging(new RunEvent.TextDelta("a")));
        var ex = chat.exchange(body(false));
        var thread = Thread.ofVirtual().start(() -> {
            try {
                ex.call(chat.handler);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        Eventually.await(Duration.ofSeconds(5), "the first delta was streamed and the handler watches the client",
                () -> ex.watchesClientGone() && ex.stream() != null && ex.stream().frames().size() >= 2);
        ex.disconnect();
        thread.join(5_000);
        assertFalse(thread.isAlive());
        assertFalse(chat.runs.cancellations().isEmpty());
        assertEquals(Optional.of("stop"), Optional.of(ex.stream().frames().get(2).data()
                .at("/choices/0/finish_reason").asText()));
    }

    @Test
    void streamingIgnoresTheIdempotencyKey() throws Exception {
        var chat = new ChatFixture();
        chat.runs.script(oneToolCall());
        chat.post(body(false), "Idempotency-Key", "k");
        chat.post(body(false), "Idempotency-Key", "k");
        assertEquals(2, chat.runs.requests().size());
    }
}
