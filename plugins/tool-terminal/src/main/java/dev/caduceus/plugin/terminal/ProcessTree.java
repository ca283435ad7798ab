package dev.caduceus.plugin.terminal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Kills a command's whole process tree: the descendants are snapshotted
 * first (once the shell dies its children are re-parented and no longer show up), the process
 * group gets SIGTERM along with every snapshotted process, and after the grace period SIGKILL goes
 * to the group and to whatever is left. The shell runs under {@code setsid}, so its pid is its
 * process group id, which also reaches double-forked children that escaped the snapshot.
 * Stateless; blocks the caller for at most the grace period plus a moment.
 */
final class ProcessTree {
    private ProcessTree() {}

    static void kill(Process process, Duration grace) {
        long group = process.pid();
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process.toHandle());
        signalGroup("TERM", group);
        tree.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + grace.toNanos();
        while (System.nanoTime() < deadline && tree.stream().anyMatch(ProcessTree::running)) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        signalGroup("KILL", group);
        tree.forEach(ProcessHandle::destroyForcibly);
    }

    /**
     * Alive and not a zombie. A process that died after its parent did is re-parented to PID 1 and
     * stays a zombie until that reaps it, which a container's init does late or, when PID 1 is this
     * JVM, never: {@link ProcessHandle#isAlive} counts it alive, and every kill waited out its grace.
     * Where {@code /proc/<pid>/stat} cannot be read, {@code isAlive} decides.
     */
    static boolean running(ProcessHandle process) {
        if (!process.isAlive()) return false;
        try {
            var stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            int end = stat.lastIndexOf(')'); // "pid (command) S ...": the command may hold spaces and parentheses
            return end < 0 || end + 2 >= stat.length() || stat.charAt(end + 2) != 'Z';
        } catch (java.nio.file.NoSuchFileException e) {
            return false; // reaped meanwhile
        } catch (java.io.IOException | RuntimeException e) {
            return process.isAlive();
        }
    }

    /** {@code kill -s SIG -- -group}; a group with no members left is simply not found. */
    private static void signalGroup(String signal, long group) {
        try {
            var kill = new ProcessBuilder("kill", "-s", signal, "--", "-" + group)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!kill.waitFor(5, TimeUnit.SECONDS)) kill.destroyForcibly();
        } catch (java.io.IOException e) {
            // No kill(1): the per-process destroy calls still cover the snapshot.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
