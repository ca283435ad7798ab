package dev.caduceus.plugin.terminal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One background command ({@code background: true}): its {@code proc_…} id, the session that
 * owns it, its output (a ring buffer of the last {@value #RING_CHARS} characters) and its stdin
 * pipe. Threading: thread-safe.
 */
final class BackgroundProcess {
    static final int RING_CHARS = 1024 * 1024;

    private final String id;
    private final String session;
    private final String command;
    private final Instant startedAt;
    private final ShellProcess shell;
    private final Clock clock;
    private volatile Instant endedAt;

    BackgroundProcess(String id, String session, String command, ShellProcess shell, Clock clock) {
        this.id = id;
        this.session = session;
        this.command = command;
        this.shell = shell;
        this.clock = clock;
        this.startedAt = clock.instant();
        shell.process().onExit().thenRun(() -> endedAt = clock.instant());
    }

    String id() { return id; }

    String session() { return session; }

    String command() { return command; }

    long pid() { return shell.pid(); }

    Instant startedAt() { return startedAt; }

    boolean running() { return shell.process().isAlive(); }

    String status() { return running() ? "running" : "exited"; }

    /** The exit code, or null while running. */
    Integer exitCode() { return running() ? null : shell.process().exitValue(); }

    long uptimeSeconds() {
        var end = endedAt != null ? endedAt : clock.instant();
        return Math.max(0, Duration.between(startedAt, end).toSeconds());
    }

    /** The last {@code chars} characters of output. */
    String tail(int chars) {
        return shell.output().last(chars);
    }

    /** The kept output split into lines (a final newline does not start an empty line). */
    List<String> lines() {
        var text = shell.output().last(RING_CHARS);
        if (text.isEmpty()) return List.of();
        if (text.endsWith("\n")) text = text.substring(0, text.length() - 1);
        return Arrays.asList(text.split("\n", -1));
    }

    /** Blocks until exit or {@code timeout}; true when it has exited. */
    boolean await(Duration timeout) throws InterruptedException {
        return shell.process().waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    void write(String data) throws IOException {
        var in = shell.process().getOutputStream();
        in.write(data.getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    void closeInput() {
        shell.closeStdin();
    }

    /** Kills the whole tree (SIGTERM, SIGKILL after {@code grace}) and waits briefly for the exit code. */
    void kill(Duration grace) throws InterruptedException {
        if (running()) shell.kill(grace);
        shell.process().waitFor(2, TimeUnit.SECONDS);
    }
}
