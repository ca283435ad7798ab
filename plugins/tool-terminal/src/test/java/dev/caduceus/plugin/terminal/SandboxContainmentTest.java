package dev.caduceus.plugin.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import dev.caduceus.platform.testkit.SandboxAvailable;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the sandbox keeps out of a command's reach, tried as a hostile command would. The test's
 * temporary directory is mounted read-only into the sandbox ({@code tools.terminal.sandbox.read_only})
 * so that the state directory and the victim lie under a mount, the hard case: they must still be
 * hidden or untouchable.
 */
@Timeout(60)
@ExtendWith(SandboxAvailable.class)
class SandboxContainmentTest {
    static final String KEY = "sk-sandbox-test-key-0123456789abcdef";
    /** Not under /tmp, which the sandbox replaces with the session's own. */
    Path tmp;

    @org.junit.jupiter.api.BeforeEach
    void makeDirectory() throws Exception {
        tmp = Files.createTempDirectory(Files.createDirectories(Path.of("target", "sandbox-tests")).toAbsolutePath(), "t");
    }

    @org.junit.jupiter.api.AfterEach
    void removeDirectory() {
        SandboxBackend.deleteTree(tmp);
    }

    Harness harness(String network) throws Exception {
        var home = Files.createDirectories(tmp.resolve("home"));
        Files.writeString(home.resolve("api_key"), KEY + "\n");
        Files.writeString(home.resolve("config.yaml"), "model:\n  api_key: " + KEY + "\n");
        return new Harness(tmp, "manual", Map.of("terminal.backend", "sandbox", "terminal.network", network,
                "terminal.sandbox.read_only", tmp.toString()));
    }

    @Test
    void theStateDirectoryIsHiddenEvenUnderAMountedPath() throws Exception {
        try (var h = harness("full")) {
            var s = h.session("s1");
            var out = h.run(s, "cat " + h.home + "/api_key " + h.home + "/config.yaml; ls -la " + h.home
                    + "; grep -rs sk-sandbox " + tmp + " /workspace /tmp /etc 2>/dev/null; echo end").path("output").asText();
            assertFalse(out.contains(KEY), out);
            assertTrue(out.endsWith("end"), out);
            // the control: the same tree is visible where it is not hidden
            assertEquals("workspace", h.run(s, "ls " + tmp + " | grep -x workspace").path("output").asText());
        }
    }

    @Test
    void aConfigFileElsewhereUnderAMountedPathIsHiddenToo() throws Exception {
        var config = Files.createDirectories(tmp.resolve("etc-caduceus")).resolve("server.yaml");
        Files.writeString(config, "model:\n  api_key: " + KEY + "\n");
        try (var h = new Harness(tmp, "manual", Map.of("terminal.backend", "sandbox",
                "terminal.sandbox.read_only", tmp.toString()), java.util.List.of(config))) {
            // cat's complaint on stdout too: the terminal merges two pipes, whose order is a race
            var out = h.run(h.session("s1"), "cat " + config + " 2>&1; ls " + config.getParent() + "; echo end")
                    .path("output").asText();
            assertFalse(out.contains(KEY), out);
            assertTrue(out.endsWith("server.yaml\nend"), "the path is there, empty: " + out);
        }
    }

    @Test
    void theServersProcessesAreInvisible() throws Exception {
        try (var h = harness("full")) {
            var out = h.run(h.session("s1"), "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done; "
                    + "cat /proc/1/environ /proc/$PPID/environ 2>/dev/null | tr '\\0' '\\n' | grep -c API_SERVER_KEY")
                    .path("output").asText();
            assertFalse(out.contains("java"), out);
            assertTrue(out.endsWith("0"), out);
            assertTrue(out.contains("bash"), "the command itself is listed: " + out);
        }
    }

    @Test
    void deletionsOutsideTheWorkspaceFail() throws Exception {
        var victim = Files.createDirectories(tmp.resolve("victim/inner"));
        Files.writeString(victim.resolve("data"), "keep me");
        try (var h = harness("full")) {
            var s = h.session("s1");
            var target = tmp.resolve("victim");
            for (var attack : new String[] {
                    "x=rm; $x -rf " + target,
                    "python3 -c 'import shutil; shutil.rmtree(\"" + target + "\")'",
                    "mv " + target + " /workspace/stolen",
                    "rm " + target + "/inner/data; rmdir " + target + "/inner",
                    "x=rm; $x -rf /usr/share/doc /etc/hostname",
                    "touch /usr/caduceus-was-here"}) {
                var r = h.run(s, attack);
                assertNotEquals(0, r.path("exit_code").asInt(), attack + ": " + r);
            }
            assertEquals("keep me", Files.readString(victim.resolve("data")));
            assertFalse(Files.exists(Path.of("/usr/caduceus-was-here")));
            assertTrue(Files.exists(Path.of("/usr/share/doc")));
        }
    }

    @Test
    void networkNoneBlocksAConnectToALoopbackPort() throws Exception {
        try (var listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            var probe = "exec 3<>/dev/tcp/127.0.0.1/" + listener.getLocalPort() + " && echo connected";
            try (var h = harness("none")) {
                var r = h.run(h.session("s1"), probe);
                assertNotEquals(0, r.path("exit_code").asInt(), r.toString());
                assertFalse(r.path("output").asText().contains("connected"));
            }
            try (var h = harness("full")) {
                assertEquals("connected", h.run(h.session("s1"), probe).path("output").asText(), "the control");
            }
        }
    }

    @Test
    void eachSessionHasItsOwnTmpThatPersists() throws Exception {
        try (var h = harness("full")) {
            var s1 = h.session("s1");
            h.run(s1, "echo mine > /tmp/note");
            assertEquals("mine", h.run(s1, "cat /tmp/note").path("output").asText());
            assertNotEquals(0, h.run(h.session("s2"), "cat /tmp/note").path("exit_code").asInt());
        }
    }

    @Test
    void homeIsTheWorkspaceAndTheDescriptionSaysSandbox() throws Exception {
        try (var h = harness("full")) {
            assertEquals("/workspace", h.run(h.session("s1"), "cd ~ && pwd").path("output").asText());
            assertTrue(h.terminal.note().orElseThrow().text().startsWith("sandbox: bubblewrap"));
            assertFalse(h.terminal.note().orElseThrow().warning());
            assertTrue(h.terminal.systemPromptSection(null).contains("/workspace"));
        }
    }
}
