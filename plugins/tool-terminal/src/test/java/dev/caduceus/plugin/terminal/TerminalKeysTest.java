package dev.caduceus.plugin.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ManualClock;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.spi.tool.ToolResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code tools.terminal.*}, {@code tools.process.*} and {@code approvals.mode} keys on the real host:
 * what {@code caduceus config-reference} lists for them, and that a host on which none is set behaves as
 * the listed defaults say. {@code tools.terminal.timeout}'s default (180 s) would take three minutes to
 * see and is left to the reference; a call's own timeout is {@link TerminalToolTest}'s.
 */
@Timeout(120)
class TerminalKeysTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Instant T0 = Instant.parse("2026-01-15T09:00:00Z");

    @Test
    void theReferenceListsEveryDeclaredKeyUnderToolsTerminalToolsProcessOrApprovalsModeWithItsDefault() {
        try (var host = TestHost.builder().plugins("tool-terminal").env("CADUCEUS__TOOLS__TERMINAL__BACKEND", "local")
                .start()) {
            var rows = host.configReferenceRows("tool-terminal");
            assertEquals(new TreeSet<>(TerminalKeys.ALL.stream().map(s -> s.key()).toList()), new TreeSet<>(rows.keySet()),
                    "every key tool-terminal declares, and only those");
            rows.keySet().forEach(key -> assertTrue(key.startsWith("tools.terminal.") || key.startsWith("tools.process.")
                    || key.equals("approvals.mode"), key));
            for (var setting : TerminalKeys.ALL) {
                var row = rows.get(setting.key());
                assertEquals(setting.defaultValue() == null ? "" : setting.defaultValue(), row.get(1), setting.key());
                assertEquals(setting.description().replace("|", "\\|"), row.get(3), setting.key());
            }
        }
    }

    /**
     * One host with no terminal key set and a {@link ManualClock}: its backend is the sandbox where
     * bubblewrap works, else local with the warning (auto), and its commands, outputs, background
     * processes and environment keep to the defaults. The lifetime reaper (every 30 s, run here at once)
     * and reads the platform's clock, so two processes started a second apart, seen 3601 s after the first
     * started, tell the limit: the older is killed and, in the same pass, the younger left running.
     */
    @Test
    void aHostWithNoTerminalKeySetBehavesAsTheDefaultsSay() throws Exception {
        var clock = new ManualClock(T0);
        try (var host = TestHost.builder().plugins("tool-terminal").clock(clock)
                .env("CADUCEUS__SERVER__DRAIN_TIMEOUT_SECONDS", "1").start()) {
            // tools.process.max_lifetime_seconds: the clock moves past it; the reaper's pass is run at the end
            var older = background(host, "lifetime", "sleep 1000").path("session_id").asText();
            clock.advance(Duration.ofSeconds(1));
            var younger = background(host, "lifetime", "sleep 1000").path("session_id").asText();
            clock.set(T0.plusSeconds(Long.parseLong(TerminalKeys.MAX_LIFETIME.defaultValue()) + 1));

            // tools.terminal.backend auto: the sandbox where it works, else local with a warning
            var note = host.deployment().tool("terminal").orElseThrow().note().orElseThrow();
            assertTrue(note.warning() ? note.text().startsWith("terminal commands run UNSANDBOXED on the host (")
                    : note.text().startsWith("sandbox: ") && note.text().endsWith("network " + TerminalKeys.DEFAULT_NETWORK),
                    note.toString());

            // tools.terminal.shell
            assertEquals(TerminalKeys.SHELL.defaultValue(), run(host, "shell", "echo $BASH").path("output").asText());

            // tools.terminal.max_foreground_timeout: that many seconds may be asked for, one more may not
            int maxForeground = Integer.parseInt(TerminalKeys.MAX_FOREGROUND_TIMEOUT.defaultValue());
            assertEquals(0, ok(call(host, "timeout", "terminal", Map.of("command", "true", "timeout", maxForeground)))
                    .path("exit_code").asInt());
            var tooLong = assertInstanceOf(ToolResult.Error.class,
                    call(host, "timeout", "terminal", Map.of("command", "true", "timeout", maxForeground + 1)));
            assertEquals("Foreground timeout " + (maxForeground + 1) + "s exceeds the maximum of " + maxForeground
                    + "s. Use background=true for long-running commands.", JSON.readTree(tooLong.message()).path("error").asText());

            // tools.terminal.max_output_chars: that much output comes back whole, one character more does not
            int maxOutput = Integer.parseInt(TerminalKeys.MAX_OUTPUT_CHARS.defaultValue());
            var whole = run(host, "output", "head -c " + maxOutput + " /dev/zero | tr '\\0' x").path("output").asText();
            assertEquals("x".repeat(maxOutput), whole);
            var capped = run(host, "output", "head -c " + (maxOutput + 1) + " /dev/zero | tr '\\0' x").path("output").asText();
            assertTrue(capped.contains("... [OUTPUT TRUNCATED - 1 chars omitted out of " + (maxOutput + 1) + " total] ..."),
                    capped.substring(0, 100));

            // tools.process.max_per_session: that many background processes run at once in a session, no more
            int maxPerSession = Integer.parseInt(TerminalKeys.MAX_PER_SESSION.defaultValue());
            for (int i = 0; i < maxPerSession; i++)
                assertTrue(background(host, "limit", "sleep 1000").has("session_id"), "process " + (i + 1));
            var refused = background(host, "limit", "sleep 1000");
            assertEquals("error", refused.path("status").asText(), refused.toString());
            assertTrue(refused.path("error").asText().startsWith("Too many background processes: " + maxPerSession
                    + " are running in this session (limit " + maxPerSession + ","), refused.toString());

            // tools.terminal.env_denylist: the server's variables it names never reach a command (surefire sets them)
            var env = run(host, "env", "env").path("output").asText().lines().map(l -> l.substring(0, Math.max(0, l.indexOf('='))))
                    .toList();
            for (var denied : TerminalKeys.DEFAULT_DENYLIST) {
                if (denied.endsWith("*")) continue;
                assertTrue(System.getenv(denied) != null, denied + " is the server's (surefire sets it)");
                assertFalse(env.contains(denied), denied + " reached the command: " + env);
            }
            assertTrue(env.contains("TERMINAL_TEST_VISIBLE"), "a variable the list does not name does: " + env);

            host.runScheduledTask("tool-terminal/terminal: reap background processes past their lifetime");
            Eventually.await(Duration.ofSeconds(45), "the reaper killed the process past its lifetime",
                    () -> status(host, older), "exited"::equals);
            assertEquals("running", status(host, younger), "a second younger, it is within its lifetime");
        }
    }

    private static ToolResult call(TestHost host, String session, String tool, Map<String, Object> arguments)
            throws Exception {
        return host.callTool(session, tool, JSON.writeValueAsString(arguments));
    }

    private static JsonNode ok(ToolResult result) throws Exception {
        if (!(result instanceof ToolResult.Ok ok)) throw new AssertionError("expected Ok, got " + result);
        return JSON.readTree(ok.content());
    }

    private static JsonNode run(TestHost host, String session, String command) throws Exception {
        return ok(call(host, session, "terminal", Map.of("command", command)));
    }

    private static JsonNode background(TestHost host, String session, String command) throws Exception {
        return ok(call(host, session, "terminal", Map.of("command", command, "background", true)));
    }

    private static String status(TestHost host, String id) throws Exception {
        return ok(call(host, "lifetime", "process", Map.of("action", "poll", "session_id", id))).path("status").asText();
    }
}
