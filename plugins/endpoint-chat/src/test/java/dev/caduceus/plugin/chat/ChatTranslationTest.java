package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.platform.testkit.RecordingEventStream;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The chat stream's translation of run events that a run on the real host does not produce (so
 * {@link ChatStreamTest} cannot): an interrupted run (only durable runs are interrupted, at
 * shutdown), tool calls without an id or a completion never announced, and tool calls overlapping
 * with exact durations. Driven with events directly, no run service.
 */
class ChatTranslationTest {
    private static final ChatCompletions SHAPES = new ChatCompletions("chatcmpl-x", 0, "hermes-agent", false);

    private static JournalEntry entry(RunEvent event) {
        return new JournalEntry("run_x", 1, Instant.EPOCH, event);
    }

    private static RunEvent.ToolCallStarted start(String id, String tool, String preview, String emoji) {
        return new RunEvent.ToolCallStarted(id, tool, JsonNodeFactory.instance.objectNode().put("command", preview),
                preview, emoji);
    }

    @Test
    void anInterruptedRunEndsWithAnErrorFinishChunkWithoutUsage() throws Exception {
        var out = new RecordingEventStream();
        var stream = new ChatStream(SHAPES, new ToolProgress(ToolProgress.Mode.COMMENTS, SHAPES));
        stream.translate(entry(new RunEvent.TextDelta("half")), out);
        stream.translate(entry(new RunEvent.Interrupted("Process ended")), out);
        var frames = out.frames();
        assertEquals("{\"id\":\"chatcmpl-x\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"hermes-agent\","
                + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"error\"}],"
                + "\"error\":{\"message\":\"Process ended\",\"type\":\"agent_error\"}}", frames.get(1).data().toString());
        assertEquals("[DONE]", frames.getLast().text());
    }

    @Test
    void callsWithoutIdsAndUnannouncedCompletionsAreNotShown() throws Exception {
        var out = new RecordingEventStream();
        var progress = new ToolProgress(ToolProgress.Mode.COMMENTS, SHAPES);
        progress.started(new RunEvent.ToolCallStarted("", "terminal", null, "ls", "💻"), out);
        progress.finished(new RunEvent.ToolCallFinished("", "terminal", 12, false, "a b c"), out);
        progress.finished(new RunEvent.ToolCallFinished("never_started", "terminal", 12, false, "x"), out);
        progress.started(new RunEvent.ToolCallStarted("c2", "custom", null, null, null), out);
        assertEquals(List.of("hermes.tool.progress {\"tool\":\"custom\",\"emoji\":\"⚡\",\"label\":\"custom\","
                + "\"toolCallId\":\"c2\",\"status\":\"running\"}"), out.frames().stream().map(f -> f.text()).toList());
    }

    @Test
    void reasoningMarksFailuresAndNamesTheToolWhenCallsOverlap() throws Exception {
        var out = new RecordingEventStream();
        var progress = new ToolProgress(ToolProgress.Mode.REASONING, SHAPES);
        progress.started(start("a", "terminal", "make", "💻"), out);
        progress.started(start("b", "web_search", "jetty 12", null), out);
        progress.finished(new RunEvent.ToolCallFinished("a", "terminal", 1500, true, "exit 2"), out);
        progress.finished(new RunEvent.ToolCallFinished("b", "web_search", 40, false, "ok"), out);
        progress.started(start("c", "_internal", "x", null), out);
        progress.finished(new RunEvent.ToolCallFinished("c", "_internal", 1, false, ""), out);
        progress.started(start("d", "terminal", "ls -la", "💻"), out);
        progress.finished(new RunEvent.ToolCallFinished("d", "terminal", 230, false, "a b c"), out);
        var texts = out.frames().stream().map(f -> f.data().at("/choices/0/delta/reasoning_content").asText()).toList();
        assertEquals(List.of("💻 terminal: make\n", "⚡ web_search: jetty 12\n", "✗ terminal 1.5 s\n\n", "✓ 0.0 s\n\n",
                "💻 terminal: ls -la\n", "✓ 0.2 s\n\n"), texts);
    }
}
