package dev.caduceus.plugin.terminal;

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
        while (System.nanoTime() < deadline && tree.stream().anyMatch(ProcessHandle::isAlive)) {
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
