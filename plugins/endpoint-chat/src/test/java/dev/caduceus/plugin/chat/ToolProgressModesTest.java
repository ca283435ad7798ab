package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.plugin.chat.ToolProgress.Mode;
import dev.caduceus.plugin.chat.ToolProgress.Setting;
import dev.caduceus.platform.testkit.Turn;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@code chat.tool_progress} (and its legacy alias) and {@code X-Hermes-Tool-Progress}, per mode, on
 * the real host. A setting is read at boot, so each setting is one host, booted on first use and
 * shared by the tests that use it. The tool called is one no plugin offers: it fails, so its end line
 * is {@code ✗}; durations are the real ones, shown here as {@code N.N}.
 */
class ToolProgressModesTest {
    private static final String HEAD = "{\"id\":\"chatcmpl-ID\",\"object\":\"chat.completion.chunk\",\"created\":0,"
            + "\"model\":\"hermes-agent\",";
    private static final String BODY = "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"how many files?\"}]}";
    private static final Map<Map<String, String>, ChatHost> HOSTS = new HashMap<>();

    @AfterAll
    static void shutDown() {
        HOSTS.values().forEach(ChatHost::close);
        HOSTS.clear();
    }

    /** The host with these settings ({@code chat.tool_progress} → {@code reasoning}). */
    private static ChatHost host(Map<String, String> settings) {
        return HOSTS.computeIfAbsent(settings, s -> {
            var env = s.entrySet().stream().flatMap(e -> java.util.stream.Stream.of(
                    "CADUCEUS__" + e.getKey().toUpperCase().replace(".", "__"), e.getValue())).toArray(String[]::new);
            return ChatHost.start(env);
        });
    }

    private static List<String> run(Map<String, String> config, String... headers) {
        var chat = host(config);
        chat.reset();
        chat.upstream.enqueue(Turn.textChunks("Let me look.").withToolCalls(Turn.ToolCall.of("call_1", "terminal",
                "{\"command\":\"ls -la\"}")), Turn.textChunks(" There are 3 files.").usage(1830, 95));
        var ex = chat.post(BODY, headers);
        assertEquals(200, ex.status(), ex.body());
        return ChatHost.wire(ex.body()).stream().map(l -> l.replaceAll("([✓✗]) \\d+\\.\\d s", "$1 N.N s")).toList();
    }

    @Test
    void reasoningSendsEachStartAndEndAsReasoningContentAndLeavesContentAlone() {
        var wire = run(Map.of("chat.tool_progress", "reasoning"));
        assertEquals(List.of(
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me look.\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"💻 terminal: ls -la\\n\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"✗ N.N s\\n\\n\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" There are 3 files.\"},\"finish_reason\":null}]}",
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":"
                        + "{\"prompt_tokens\":1830,\"completion_tokens\":95,\"total_tokens\":1925}}",
                "data: [DONE]"), wire);
    }

    @Test
    void reasoningShowsEachCallOfATurnAndNoInternalOne() throws Exception {
        var chat = host(Map.of("chat.tool_progress", "reasoning"));
        chat.reset();
        chat.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("a", "terminal", "{\"command\":\"make\"}"),
                Turn.ToolCall.of("b", "web_search", "{\"query\":\"jetty 12\"}"),
                Turn.ToolCall.of("c", "_internal", "{}")), Turn.text("done"));
        var texts = ChatHost.chunks(chat.post(BODY).body()).stream()
                .map(n -> n.at("/choices/0/delta/reasoning_content")).filter(n -> !n.isMissingNode())
                .map(n -> n.asText().replaceAll("([✓✗]) \\d+\\.\\d s", "$1 N.N s")).toList();
        assertEquals(List.of("💻 terminal: make\n", "✗ N.N s\n\n", "🔍 web_search: jetty 12\n", "✗ N.N s\n\n"), texts);
    }

    @Test
    void eventsSendsNamedFramesAndNoneSendsNothing() {
        var events = run(Map.of("chat.tool_progress", "events"));
        assertEquals(List.of("running", "completed"), events.stream().filter(l -> l.startsWith("event: hermes.tool.progress"))
                .map(l -> l.contains("\"status\":\"running\"") ? "running" : "completed").toList(), events::toString);
        assertTrue(run(Map.of("chat.tool_progress", "none")).stream().noneMatch(l -> l.contains("hermes.tool.progress")
                || l.contains("reasoning_content")));
        var comments = run(Map.of("chat.tool_progress", "comments"));
        assertEquals(2, comments.stream().filter(l -> l.startsWith(": hermes.tool.progress")).count());
    }

    @Test
    void theHeaderChoosesTheModeForOneRequest() {
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
    void theLegacyKeyIsAnAliasAndTheNewKeyWins() {
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
