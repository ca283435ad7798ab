package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.plugin.chat.ToolProgress.Mode;
import dev.caduceus.plugin.chat.ToolProgress.Setting;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.testkit.ScriptedRuns;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code chat.tool_progress} (and its legacy alias) and {@code X-Hermes-Tool-Progress}, per mode. */
class ToolProgressModesTest {
    private static final String HEAD = "{\"id\":\"chatcmpl-ID\",\"object\":\"chat.completion.chunk\",\"created\":1768467600,"
            + "\"model\":\"hermes-agent\",";
    private static final String BODY = "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"how many files?\"}]}";

    private static RunEvent.ToolCallStarted start(String id, String tool, String preview, String emoji) {
        return new RunEvent.ToolCallStarted(id, tool, JsonNodeFactory.instance.objectNode().put("command", preview),
                preview, emoji);
    }

    private static ScriptedRuns.Script oneToolCall() {
        return ScriptedRuns.Script.of(RunResult.completed("Let me look. There are 3 files.", ChatFixture.USAGE, List.of()),
                new RunEvent.TextDelta("Let me look."), start("call_1", "terminal", "ls -la", "💻"),
                new RunEvent.ToolCallFinished("call_1", "terminal", 230, false, "a b c"),
                new RunEvent.TextDelta(" There are 3 files."));
    }

    private static List<String> run(Map<String, String> config, String... headers) throws Exception {
        var chat = new ChatFixture(config);
        chat.runs.script(oneToolCall());
        return ChatFixture.wire(chat.post(BODY, headers).stream());
    }

    @Test
    void reasoningSendsEachStartAndEndAsReasoningContentAndLeavesContentAlone() throws Exception {
        var wire = run(Map.of("chat.tool_progress", "reasoning"));
        assertEquals(List.of(
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me look.\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"💻 terminal: ls -la\\n\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"✓ 0.2 s\\n\\n\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" There are 3 files.\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":"
                        + "{\"prompt_tokens\":1830,\"completion_tokens\":95,\"total_tokens\":1925}}",
                "data: [DONE]"), wire);
    }

    @Test
    void reasoningMarksFailuresAndNamesTheToolWhenCallsOverlap() throws Exception {
        var chat = new ChatFixture(Map.of("chat.tool_progress", "reasoning"));
        chat.runs.script(ScriptedRuns.Script.of(RunResult.completed("done", ChatFixture.USAGE, List.of()),
                start("a", "terminal", "make", "💻"), start("b", "web_search", "jetty 12", null),
                new RunEvent.ToolCallFinished("a", "terminal", 1500, true, "exit 2"),
                new RunEvent.ToolCallFinished("b", "web_search", 40, false, "ok"),
                start("c", "_internal", "x", null), new RunEvent.ToolCallFinished("c", "_internal", 1, false, ""),
                new RunEvent.TextDelta("done")));
        var texts = chat.post(BODY).stream().frames().stream().filter(f -> f.kind().equals("event") && f.data() != null)
                .map(f -> f.data().at("/choices/0/delta/reasoning_content")).filter(n -> !n.isMissingNode())
                .map(n -> n.asText()).toList();
        assertEquals(List.of("💻 terminal: make\n", "⚡ web_search: jetty 12\n", "✗ terminal 1.5 s\n\n", "✓ 0.0 s\n\n"), texts);
    }

    @Test
    void eventsSendsNamedFramesAndNoneSendsNothing() throws Exception {
        var events = run(Map.of("chat.tool_progress", "events"));
        assertEquals(List.of("running", "completed"), events.stream().filter(l -> l.startsWith("event: hermes.tool.progress"))
                .map(l -> l.contains("\"status\":\"running\"") ? "running" : "completed").toList(), events::toString);
        assertTrue(run(Map.of("chat.tool_progress", "none")).stream().noneMatch(l -> l.contains("hermes.tool.progress")
                || l.contains("reasoning_content")));
        var comments = run(Map.of("chat.tool_progress", "comments"));
        assertEquals(2, comments.stream().filter(l -> l.startsWith(": hermes.tool.progress")).count());
    }

    @Test
    void theHeaderChoosesTheModeForOneRequest() throws Exception {
        assertEquals(2, run(Map.of(), "X-Hermes-Tool-Progress", "reasoning").stream()
                .filter(l -> l.contains("reasoning_content")).count());
        assertEquals(2, run(Map.of("chat.tool_progress", "none"), "X-Hermes-Tool-Progress", "true").stream()
                .filter(l -> l.startsWith("event: hermes.tool.progress")).count());
        assertEquals(2, run(Map.of("chat.tool_progress", "reasoning"), "X-Hermes-Tool-Progress", "Events").stream()
                .filter(l -> l.startsWith("event: hermes.tool.progress")).count());
        assertTrue(run(Map.of("chat.tool_progress", "reasoning"), "X-Hermes-Tool-Progress", "false").stream()
                .noneMatch(l -> l.contains("reasoning_content") || l.contains("hermes.tool.progress")));
        assertEquals(2, run(Map.of("chat.tool_progress", "reasoning"), "X-Hermes-Tool-Progress", "bogus").stream()
                .filter(l -> l.contains("reasoning_content")).count(), "an unknown word leaves the setting");
    }

    @Test
    void theLegacyKeyIsAnAliasAndTheNewKeyWins() throws Exception {
        assertEquals(new Setting(Mode.COMMENTS, true), Setting.of(Optional.empty(), "opt_in"));
        assertEquals(new Setting(Mode.EVENTS, true), Setting.of(Optional.empty(), "always"));
        assertEquals(new Setting(Mode.NONE, false), Setting.of(Optional.empty(), "off"));
        assertEquals(new Setting(Mode.REASONING, true), Setting.of(Optional.of("reasoning"), "off"));
        assertThrows(IllegalArgumentException.class, () -> Setting.of(Optional.of("loud"), "opt_in"));
        // opt_in: comments, the header opts in as before
        assertEquals(2, run(Map.of("chat.tool_progress_events", "opt_in")).stream()
                .filter(l -> l.startsWith(": hermes.tool.progress")).count());
        assertEquals(2, run(Map.of("chat.tool_progress_events", "opt_in"), "X-Hermes-Tool-Progress", "true").stream()
                .filter(l -> l.startsWith("event: hermes.tool.progress")).count());
        // off: nothing, whatever the header asks, as before
        assertTrue(run(Map.of("chat.tool_progress_events", "off"), "X-Hermes-Tool-Progress", "reasoning").stream()
                .noneMatch(l -> l.contains("reasoning_content") || l.contains("hermes.tool.progress")));
        // both set: chat.tool_progress decides
        assertEquals(2, run(Map.of("chat.tool_progress_events", "off", "chat.tool_progress", "events")).stream()
                .filter(l -> l.startsWith("event: hermes.tool.progress")).count());
    }
}
