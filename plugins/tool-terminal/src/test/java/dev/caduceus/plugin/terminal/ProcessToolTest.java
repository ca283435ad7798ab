package dev.caduceus.plugin.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.platform.testkit.Eventually;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The process tool on each backend: {@link LocalProcessToolTest} and {@link SandboxProcessToolTest}. */
@Timeout(60)
abstract class ProcessToolTest {
    @TempDir Path tmp;

    /** {@code tools.terminal.backend} for this run. */
    abstract String backend();

    Harness harness() throws Exception {
        return harness(Map.of());
    }

    Harness harness(Map<String, String> tools) throws Exception {
        var all = new java.util.HashMap<>(tools);
        all.put("terminal.backend", backend());
        return new Harness(tmp, "manual", all);
    }



    @Test
    void backgroundProcessIsStartedPolledLoggedAndKilled() throws Exception {
        try (var h = harness()) {
            var s1 = h.session("s1");
            var started = background(h, s1, "for i in 1 2 3; do echo line$i; done; sleep 1000");
            assertEquals("Background process started", started.path("output").asText());
            assertEquals("Use the process tool (poll, log, wait, kill) with this session_id.", started.path("hint").asText());
            var id = started.path("session_id").asText();
            assertTrue(id.matches("proc_[0-9a-f]{12}"), id);
            long pid = started.path("pid").asLong();

            var poll = awaitOutput(h, s1, id, "line3");
            assertEquals("running", poll.path("status").asText());
            assertTrue(poll.path("exit_code").isNull());

            var log = process(h, s1, Map.of("action", "log", "session_id", id));
            assertEquals("line1\nline2\nline3", log.path("output").asText());
            assertEquals(3, log.path("total_lines").asInt());
            var page = process(h, s1, Map.of("action", "log", "session_id", id, "offset", 1, "limit", 1));
            assertEquals("line2", page.path("output").asText());
            assertEquals(1, page.path("returned_lines").asInt());

            var list = process(h, s1, Map.of("action", "list"));
            assertEquals(1, list.path("processes").size());
            assertEquals(id, list.path("processes").get(0).path("session_id").asText());
            assertEquals(0, process(h, h.session("s2"), Map.of("action", "list")).path("processes").size());

            var waited = process(h, s1, Map.of("action", "wait", "session_id", id, "timeout", 1));
            assertTrue(waited.path("timed_out").asBoolean());

            var killed = process(h, s1, Map.of("action", "kill", "session_id", id));
            assertTrue(killed.path("killed").asBoolean());
            assertFalse(killed.path("exit_code").isNull());
            TerminalToolTest.assertGone(pid);
            assertEquals("exited", process(h, s1, Map.of("action", "poll", "session_id", id)).path("status").asText());
        }
    }

    @Test
    void killEndsTheProcessAndEveryChild() throws Exception {
        try (var h = harness()) {
            var s1 = h.session("s1");
            var child = "1002." + System.nanoTime() % 1000;
            var id = background(h, s1, "sleep " + child + " & sleep 1003; wait").path("session_id").asText();
            Eventually.await(Duration.ofSeconds(5), "the child started", () -> TerminalToolTest.running("sleep " + child));
            assertTrue(process(h, s1, Map.of("action", "kill", "session_id", id)).path("killed").asBoolean());
            TerminalToolTest.assertNoProcess("sleep " + child);
        }
    }

    @Test
    void otherSessionsCannotSeeAProcess() throws Exception {
        try (var h = harness()) {
            var id = background(h, h.session("s1"), "sleep 100").path("session_id").asText();
            var error = assertInstanceOf(ToolResult.Error.class,
                    h.call(h.process, h.session("s2"), "{\"action\":\"poll\",\"session_id\":\"" + id + "\"}"));
            assertEquals("Unknown process session: " + id, h.errorMessage(error));
        }
    }

    @Test
    void writeSubmitAndCloseReachStdin() throws Exception {
        try (var h = harness()) {
            var s1 = h.session("s1");
            var id = background(h, s1, "cat").path("session_id").asText();
            assertTrue(process(h, s1, Map.of("action", "write", "session_id", id, "data", "par")).path("ok").asBoolean());
            process(h, s1, Map.of("action", "submit", "session_id", id, "data", "tial"));
            awaitOutput(h, s1, id, "partial");
            process(h, s1, Map.of("action", "close", "session_id", id));
            var waited = process(h, s1, Map.of("action", "wait", "session_id", id, "timeout", 10));
            assertFalse(waited.path("timed_out").asBoolean());
            assertEquals(0, waited.path("exit_code").asInt());
            assertEquals("partial\n", waited.path("output_tail").asText());
        }
    }

    @Test
    void maxPerSessionIsEnforced() throws Exception {
        try (var h = harness(Map.of("process.max_per_session", "2"))) {
            var s1 = h.session("s1");
            background(h, s1, "sleep 100");
            background(h, s1, "sleep 100");
            var third = background(h, s1, "sleep 100");
            assertEquals("error", third.path("status").asText());
            assertTrue(third.path("error").asText().startsWith("Too many background processes"), third.toString());
            assertTrue(background(h, h.session("s2"), "sleep 100").has("session_id"), "other sessions have their own limit");
        }
    }

    @Test
    void badActionsAndMissingIdsAreErrors() throws Exception {
        try (var h = harness()) {
            var s1 = h.session("s1");
            assertEquals("session_id is required for poll",
                    h.errorMessage(h.call(h.process, s1, "{\"action\":\"poll\"}")));
            var bad = assertInstanceOf(ToolResult.Error.class, h.call(h.process, s1, "{\"action\":\"explode\"}"));
            assertTrue(h.errorMessage(bad).contains("list, poll, log, wait, kill, write, submit, close"), bad.message());
            assertEquals("Unknown process session: proc_000000000000",
                    h.errorMessage(h.call(h.process, s1, "{\"action\":\"kill\",\"session_id\":\"proc_000000000000\"}")));
        }
    }

    @Test
    void anInterruptedRunReapsItsSessionsBackgroundProcessesOnly() throws Exception {
        try (var h = harness()) {
            long mine = background(h, h.session("s1"), "sleep 1000").path("pid").asLong();
            long other = background(h, h.session("s2"), "sleep 1000").path("pid").asLong();
            h.terminal.runInterrupted(h.session("s1").sessionId()); // what the host does when a run of s1 is interrupted
            TerminalToolTest.assertGone(mine);
            assertTrue(ProcessHandle.of(other).isPresent(), "another session's process keeps running");
        }
    }

    @Test
    void pluginStopKillsBackgroundProcesses() throws Exception {
        long pid;
        try (var h = harness()) {
            pid = background(h, h.session("s1"), "sleep 1000").path("pid").asLong();
            assertTrue(ProcessHandle.of(pid).isPresent());
        }
        TerminalToolTest.assertGone(pid);
    }

    private static JsonNode background(Harness h, Session ctx, String command) throws Exception {
        return h.ok(h.call(h.terminal, ctx, h.json.writeValueAsString(Map.of("command", command, "background", true))));
    }

    private static JsonNode process(Harness h, Session ctx, Map<String, Object> args) throws Exception {
        return h.ok(h.call(h.process, ctx, h.json.writeValueAsString(args)));
    }

    private static JsonNode awaitOutput(Harness h, Session ctx, String id, String text) throws Exception {
        return Eventually.await(Duration.ofSeconds(5), "'" + text + "' in the output",
                () -> process(h, ctx, Map.of("action", "poll", "session_id", id)),
                poll -> poll.path("output_tail").asText().contains(text));
    }
}
