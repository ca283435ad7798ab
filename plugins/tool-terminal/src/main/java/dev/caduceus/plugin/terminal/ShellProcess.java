package dev.caduceus.plugin.terminal;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * One started shell command (started by its {@link Backend}, in its own session and process group), stdout and stderr
 * pumped concurrently into one {@link CappedOutput}, stdin either {@code /dev/null} (foreground) or
 * a pipe (background, for the process tool's {@code write}).
 *
 * <p>Threading: thread-safe; {@link #kill} may be called from any thread, more than once.
 */
final class ShellProcess {
    private final Process process;
    private final CappedOutput output;
    private final Thread stdout;
    private final Thread stderr;

    private ShellProcess(Process process, CappedOutput output) {
        this.process = process;
        this.output = output;
        this.stdout = StreamPump.start("terminal-stdout-" + process.pid(), process.getInputStream(), output);
        this.stderr = StreamPump.start("terminal-stderr-" + process.pid(), process.getErrorStream(), output);
    }

    /** Starts {@code invocation} on {@code backend}, its output pumped into {@code output}. */
    static ShellProcess start(Backend backend, Backend.Invocation invocation, CappedOutput output)
            throws IOException, InterruptedException {
        return new ShellProcess(backend.start(invocation), output);
    }

    Process process() {
        return process;
    }

    long pid() {
        return process.pid();
    }

    CappedOutput output() {
        return output;
    }

    /** Waits until both pipes reached end of stream; false when {@code limit} passed first. */
    boolean awaitOutput(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        for (var pump : List.of(stdout, stderr)) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !pump.join(Duration.ofNanos(left))) return !stdout.isAlive() && !stderr.isAlive();
        }
        return true;
    }

    /** Kills the whole tree (see {@link ProcessTree}) and closes stdin. */
    void kill(Duration grace) {
        ProcessTree.kill(process, grace);
        closeStdin();
    }

    void closeStdin() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // already closed or the child is gone
        }
    }
}
