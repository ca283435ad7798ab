package dev.caduceus.plugin.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.platform.testkit.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The terminal tool on each backend: {@link LocalTerminalToolTest} and {@link SandboxTerminalToolTest}. One
 * host per class; each test works in sessions of its own ({@code <test>-s1}, {@code <test>-s2}).
 */
@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class TerminalToolTest {
    Harness h;
    Session s1;
    private String test;

    /** {@code tools.terminal.backend} for this run. */
    abstract String backend();

    @BeforeAll
    void start(@TempDir Path tmp) throws Exception {
        h = new Harness(tmp, "manual", Map.of("terminal.backend", backend()));
    }

    @BeforeEach
    void sessions(TestInfo info) {
        test = info.getTestMethod().orElseThrow().getName();
        s1 = session("s1");
    }

    /** This test's session {@code name}. */
    Session session(String name) {
        return h.session(test + "-" + name);
    }

    @AfterAll
    void stop() throws Exception {
        h.close();
    }

    @Test
    void runsCommandsWithHermesJsonAndExitCodes() throws Exception {
        assertEquals("{\"output\": \"hello wörld ✓\", \"exit_code\": 0, \"error\": null}",
                Harness.content(h.call(h.terminal, s1, "{\"command\":\"echo 'hello wörld ✓'\"}")));
        assertEquals(3, h.run(s1, "echo before; exit 3").path("exit_code").asInt());
        var grep = h.run(s1, "echo abc | grep zzz");
        assertEquals(1, grep.path("exit_code").asInt());
        assertEquals("No matches found (not an error)", grep.path("exit_code_meaning").asText());
        assertFalse(h.run(s1, "false").has("exit_code_meaning"));
    }

    @Test
    void capturesStderrMergedWithStdout() throws Exception {
        var r = h.run(s1, "echo out; echo oops >&2");
        assertTrue(r.path("output").asText().contains("out"));
        assertTrue(r.path("output").asText().contains("oops"));
    }

    @Test
    void directoryAndExportsPersistWithinASessionOnly() throws Exception {
        h.run(s1, "mkdir -p sub/deeper && cd sub && export FOO=bar && LOCALONLY=1");
        assertEquals(h.view("sub"), h.run(s1, "pwd -P").path("output").asText());
        assertEquals("bar:", h.run(s1, "echo \"$FOO:$LOCALONLY\"").path("output").asText());
        h.run(s1, "cd deeper");
        assertTrue(h.run(s1, "pwd").path("output").asText().endsWith("/sub/deeper"));

        var s2 = session("s2");
        assertEquals(h.view(""), h.run(s2, "pwd -P").path("output").asText());
        assertEquals(":", h.run(s2, "echo \"$FOO:\"").path("output").asText());
    }

    @Test
    void workdirMustStayInsideTheWorkspace() throws Exception {
        h.run(s1, "mkdir -p inside");
        var inside = h.ok(h.call(h.terminal, s1, "{\"command\":\"pwd\",\"workdir\":\"inside\"}"));
        assertTrue(inside.path("output").asText().endsWith("/inside"));
        assertTrue(h.run(s1, "pwd").path("output").asText().endsWith("workspace"), "workdir is for one command only");

        var outside = h.ok(h.call(h.terminal, s1, "{\"command\":\"pwd\",\"workdir\":\"/tmp\"}"));
        assertEquals("blocked", outside.path("status").asText());
        assertEquals("workdir is outside the workspace", outside.path("error").asText());
        assertEquals(-1, outside.path("exit_code").asInt());
        var dotdot = h.ok(h.call(h.terminal, s1, "{\"command\":\"pwd\",\"workdir\":\"inside/../..\"}"));
        assertEquals("workdir is outside the workspace", dotdot.path("error").asText());
        var chars = h.ok(h.call(h.terminal, s1, "{\"command\":\"pwd\",\"workdir\":\"inside;ls\"}"));
        assertEquals("workdir contains disallowed characters", chars.path("error").asText());
    }

    @Test
    void timeoutKillsTheWholeProcessTree() throws Exception {
        // unique sleep lengths name the two processes on the host (a sandbox's pids are its own)
        var bg = "1000." + System.nanoTime() % 1000;
        var fg = "1001." + System.nanoTime() % 1000;
        Files.writeString(h.workspace.resolve("tree.sh"), "sleep " + bg + " &\nsh -c 'exec sleep " + fg + "'\n");
        var r = h.ok(h.call(h.terminal, s1, "{\"command\":\"echo started; bash tree.sh\",\"timeout\":1}"));
        assertEquals(124, r.path("exit_code").asInt());
        assertEquals("Command timed out after 1 seconds", r.path("error").asText());
        assertEquals("started", r.path("output").asText());
        assertNoProcess("sleep " + bg);
        assertNoProcess("sleep " + fg);
    }

    @Test
    void hugeOutputIsCappedWithHeadAndTail() throws Exception {
        var yes = h.run(s1, "yes | head -c 5000000").path("output").asText();
        assertTrue(yes.contains("\n\n... [OUTPUT TRUNCATED - 4950000 chars omitted out of 5000000 total] ...\n\n"), yes.length() + "");
        assertTrue(yes.length() < 50_200);

        var seq = h.run(s1, "seq 1 1000000").path("output").asText();
        assertTrue(seq.startsWith("1\n2\n3\n"));
        assertTrue(seq.endsWith("999999\n1000000"));
        assertTrue(seq.contains("... [OUTPUT TRUNCATED - 6838896 chars omitted out of 6888896 total] ..."));
        int marker = seq.indexOf("\n\n... [OUTPUT");
        assertEquals(20_000, marker, "first 40 % kept");
    }

    @Test
    void binaryOutputIsDecodedWithReplacement() throws Exception {
        var r = h.run(s1, "printf '\\xff\\xfe ok\\n'; head -c 20000 /dev/urandom; echo; echo done");
        assertEquals(0, r.path("exit_code").asInt());
        assertTrue(r.path("output").asText().startsWith("\uFFFD\uFFFD ok"));
        assertTrue(r.path("output").asText().endsWith("done"));
    }

    @Test
    void stdinIsAtEndOfFile() throws Exception {
        assertEquals("", h.run(s1, "cat").path("output").asText());
        assertEquals("read:1", h.run(s1, "read x; echo read:$?").path("output").asText());
    }

    @Test
    void cancellationKillsTheCommandAndReportsInterrupted() throws Exception {
        var sleep = "sleep 30." + System.nanoTime() % 1000;
        var call = CompletableFuture.supplyAsync(() -> {
            try {
                return h.run(s1, "echo begun; " + sleep);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        Eventually.await(Duration.ofSeconds(10), "the command is running", () -> running(sleep));
        s1.cancellation().cancel();
        var r = call.get(10, TimeUnit.SECONDS); // long before the 30 s sleep ends: the cancel killed it
        assertEquals(130, r.path("exit_code").asInt());
        assertEquals("begun\n[Command interrupted]", r.path("output").asText());
    }

    @Test
    void badArgumentsGiveErrorResults() throws Exception {
        assertEquals("{\"output\": \"\", \"exit_code\": -1, \"error\": \"Invalid command: expected string, got list\", "
                + "\"status\": \"error\"}", Harness.content(h.call(h.terminal, s1, "{\"command\":[42]}")));
        // a number is coerced to a string by the host before the tool sees it: the command "42"
        assertEquals(127, h.ok(h.call(h.terminal, s1, "{\"command\":42}")).path("exit_code").asInt());
        assertEquals("Invalid command: expected string, got NoneType",
                h.ok(h.call(h.terminal, s1, "{}")).path("error").asText());
        assertInstanceOf(ToolResult.Error.class, h.call(h.terminal, s1, "{\"command\":\"ls\",\"timeout\":\"soon\"}"));
        assertInstanceOf(ToolResult.Error.class, h.call(h.terminal, s1, "{\"command\":\"ls\",\"background\":\"yes\"}"));
        assertInstanceOf(ToolResult.Error.class, h.call(h.terminal, s1, "{\"command\":\"ls\",\"timeout\":0}"));
        var tooLong = assertInstanceOf(ToolResult.Error.class, h.call(h.terminal, s1, "{\"command\":\"ls\",\"timeout\":601}"));
        assertEquals("Foreground timeout 601s exceeds the maximum of 600s. Use background=true for long-running commands.",
                h.errorMessage(tooLong));
    }

    @Test
    void longLivedForegroundCommandsAreRefused() throws Exception {
        for (var command : new String[] {"nohup sleep 1", "sleep 1 &", "sleep 1 & echo x", "npm run dev", "disown"}) {
            var r = h.ok(h.call(h.terminal, s1, h.json.writeValueAsString(Map.of("command", command))));
            assertEquals("error", r.path("status").asText(), command);
            assertTrue(r.path("error").asText().contains("background=true"), command);
        }
        assertEquals("a\nb", h.run(s1, "echo a && echo b 2>&1").path("output").asText());
        assertEquals("x & y", h.run(s1, "echo 'x & y'").path("output").asText());
    }

    @Test
    void childEnvironmentDropsTheDenylist() throws Exception {
        var env = h.run(s1, "env").path("output").asText();
        assertFalse(env.contains("caduceus-secret-value"), "CADUCEUS_* removed");
        assertFalse(env.contains("api-server-key-value"), "API_SERVER_KEY removed");
        assertTrue(env.contains("TERMINAL_TEST_VISIBLE=visible-value"), "set by surefire: " + env);
        assertTrue(env.contains("CADUCEUS_SESSION_ID=" + s1.sessionId()), env);
        assertTrue(env.contains("CADUCEUS_WORKSPACE=" + (h.sandboxed ? "/workspace" : h.workspace)));
    }

    @Test
    void workspaceIsCreatedPrivate() throws Exception {
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(h.workspace)));
    }

    /** Polls until no host process has {@code commandLine} as its command line (a deadline of 5 s). */
    static void assertNoProcess(String commandLine) throws InterruptedException {
        Eventually.await(Duration.ofSeconds(5), "no process runs " + commandLine, () -> !running(commandLine));
    }

    static boolean running(String commandLine) {
        return ProcessHandle.allProcesses().anyMatch(p -> p.isAlive()
                && p.info().commandLine().map(c -> c.equals(commandLine) || c.endsWith("/" + commandLine)).orElse(false));
    }

    static void assertGone(long pid) throws InterruptedException {
        Eventually.await(Duration.ofSeconds(5), "pid " + pid + " is gone",
                () -> !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    }
}
