package dev.caduceus.plugin.terminal;

import dev.caduceus.spi.tool.Cancellation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs one foreground command to completion, timeout or cancellation, and caps its output.
 * The command runs through {@code eval} inside a wrapper whose EXIT trap writes {@code $PWD} and
 * {@code env -0} to a state file, so {@code cd} and {@code export} carry over to the session's next
 * call. On timeout or cancellation the whole process tree is killed. Stateless apart from settings.
 */
final class ForegroundCommand {
    private static final Duration LINGER = Duration.ofSeconds(5);

    /**
     * The wrapper: {@code $1} is the command, {@code $2} the state file as the command sees it. The
     * EXIT trap records the state; the command runs via eval so that its syntax errors and
     * {@code exit} stay inside. The two variables are not exported, so the state does not carry them.
     */
    private static final String WRAPPER = "__caduceus_cmd=$1; __caduceus_state=$2; shift 2\n"
            + "trap '__caduceus_ec=$?; { printf \"%s\\0\" \"$PWD\"; env -0; } > \"$__caduceus_state\" 2>/dev/null; "
            + "exit $__caduceus_ec' EXIT\n"
            + "eval \"$__caduceus_cmd\"";

    /** How the command ended. */
    enum Ending { EXITED, TIMED_OUT, INTERRUPTED }

    /** The outcome; {@code output} is already capped and trimmed. */
    record Outcome(String output, int exitCode, Ending ending) {}

    private final TerminalSettings settings;
    private final Path stateDir;
    private final Backend backend;

    ForegroundCommand(TerminalSettings settings, Path stateDir, Backend backend) {
        this.settings = settings;
        this.stateDir = stateDir;
        this.backend = backend;
    }

    /**
     * Runs {@code command} in {@code dir} (a view path of the backend) for a call whose host workspace
     * is {@code workspace}; on a normal exit the session's state is updated ({@code keepCwd}: see
     * {@link ShellSessions#update}).
     */
    Outcome run(String command, Path workspace, Path dir, Map<String, String> env, int timeoutSeconds,
                Cancellation cancel, ShellSessions sessions, String session, Path keepCwd)
            throws IOException, InterruptedException {
        var stateFile = Files.createTempFile(stateDir, "state-", ".bin");
        try {
            var argv = List.of(settings.shell(), "-c", WRAPPER, settings.shell(), command, backend.stateFileView(stateFile));
            var shell = ShellProcess.start(backend, new Backend.Invocation(argv, session, workspace, dir, env, stateFile,
                    false), CappedOutput.forForeground(settings.maxOutputChars()));
            Ending ending = await(shell, timeoutSeconds, cancel);
            int exit;
            if (ending == Ending.EXITED) {
                exit = shell.process().exitValue();
                if (!shell.awaitOutput(LINGER)) shell.kill(settings.killGrace()); // a leftover child holds the pipe
                sessions.update(session, workspace, stateFile, keepCwd);
            } else {
                shell.kill(settings.killGrace());
                exit = ending == Ending.TIMED_OUT ? 124 : 130;
            }
            shell.awaitOutput(Duration.ofSeconds(1));
            var output = shell.output().text().strip();
            if (ending == Ending.INTERRUPTED) output = (output.isEmpty() ? "" : output + "\n") + "[Command interrupted]";
            return new Outcome(output, exit, ending);
        } finally {
            Files.deleteIfExists(stateFile);
        }
    }

    private static Ending await(ShellProcess shell, int timeoutSeconds, Cancellation cancel) throws InterruptedException {
        var done = new CountDownLatch(1);
        shell.process().onExit().thenRun(done::countDown);
        try (var hook = cancel.onCancel(done::countDown)) {
            boolean finished = done.await(timeoutSeconds, TimeUnit.SECONDS);
            if (cancel.isCancelled() && shell.process().isAlive()) return Ending.INTERRUPTED;
            if (!finished) return shell.process().isAlive() ? Ending.TIMED_OUT : Ending.EXITED;
            return Ending.EXITED;
        } catch (InterruptedException e) {
            shell.kill(Duration.ZERO);
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot unregister the cancellation hook", e);
        }
    }
}
