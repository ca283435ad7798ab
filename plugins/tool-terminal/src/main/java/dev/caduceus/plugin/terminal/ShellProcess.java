package dev.caduceus.plugin.terminal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One started shell command: its own session and process group ({@code setsid}), stdout and stderr
 * pumped concurrently into one {@link CappedOutput}, stdin either {@code /dev/null} (foreground) or
 * a pipe (background, for the process tool's {@code write}).
 *
 * <p>Threading: thread-safe; {@link #kill} may be called from any thread, more than once.
 */
final class ShellProcess {
    private static final List<Path> SETSID = List.of(Path.of("/usr/bin/setsid"), Path.of("/bin/setsid"));

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

    /**
     * Starts {@code argv} under {@code setsid} (when installed) in {@code dir} with exactly {@code env}.
     *
     * @param stdinPipe keep stdin open as a pipe; otherwise it reads {@code /dev/null}
     */
    static ShellProcess start(List<String> argv, Path dir, Map<String, String> env, boolean stdinPipe,
                              CappedOutput output) throws IOException {
        var command = new ArrayList<String>();
        SETSID.stream().filter(Files::isExecutable).findFirst().ifPresent(p -> command.add(p.toString()));
        command.addAll(argv);
        var builder = new ProcessBuilder(command).directory(dir.toFile());
        builder.environment().clear();
        builder.environment().putAll(env);
        if (!stdinPipe) builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        return new ShellProcess(builder.start(), output);
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
