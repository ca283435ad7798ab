package dev.caduceus.plugin.terminal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProcessTreeTest {

    /**
     * A child that exited under a parent that never reaps it stays a zombie: {@code isAlive} counts it,
     * so a kill used to wait out its whole grace for it (~2 s a process where a container's PID 1 reaps
     * late). {@code sleep 0.1} below is such a child: its shell exec'd into {@code sleep 1000}.
     */
    @Test
    void aZombieIsNotRunningThoughIsAliveSaysSo() throws Exception {
        var parent = new ProcessBuilder("sh", "-c", "sleep 0.1 & exec sleep 1000").start();
        try {
            var child = Eventually.await(Duration.ofSeconds(10), "the shell's background child",
                    () -> parent.descendants().findFirst().orElse(null), java.util.Objects::nonNull);
            assertTrue(ProcessTree.running(child) || state(child) == 'Z', "running until it exits");
            Eventually.await(Duration.ofSeconds(10), "the child exits, unreaped", () -> state(child), s -> s == 'Z');
            assertTrue(child.isAlive(), "the JDK counts a zombie alive");
            assertFalse(ProcessTree.running(child), "a zombie is not running");
            assertTrue(ProcessTree.running(parent.toHandle()), "its parent, sleeping, is");
        } finally {
            parent.destroyForcibly().waitFor();
        }
        assertFalse(ProcessTree.running(parent.toHandle()), "reaped by the JVM: gone");
    }

    private static char state(ProcessHandle process) {
        try {
            var stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2);
        } catch (java.io.IOException e) {
            return '?';
        }
    }
}
