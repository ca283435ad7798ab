package dev.caduceus.plugin.terminal;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the terminal's commands run: on the host
 * ({@link LocalBackend}) or in a bubblewrap sandbox ({@link SandboxBackend}).
 *
 * <p>Paths: commands see the filesystem through the backend's <em>view</em>. For the local backend
 * the view is the host; for the sandbox the workspace is at {@link SandboxBackend#WORKSPACE} and
 * {@code /tmp} is the session's own. Session state (working directory) is kept in view paths;
 * {@link #toHost} maps one to the host path behind it, for existence and confinement checks.
 *
 * <p>Threading: implementations are thread-safe. Lifecycle: made at plugin start by
 * {@link BackendChoice}, closed at plugin stop.
 */
sealed interface Backend extends AutoCloseable permits LocalBackend, SandboxBackend {

    /** {@code local} or {@code sandbox}. */
    String name();

    /** One line for operators and the model: what isolates commands here. */
    String describe();

    /** The workspace as commands see it. */
    Path workspaceView(Path workspace);

    /** What {@code ~} means to commands. */
    Path home(Path workspace);

    /**
     * The host path behind {@code view} (absolute, normalized), or empty when the view path is not
     * one the backend shows to commands.
     */
    Optional<Path> toHost(Path view, Path workspace, String session);

    /** Where the command sees the host file {@code stateFile} that the wrapper writes its state to. */
    String stateFileView(Path stateFile);

    /** Starts one command. */
    Process start(Invocation invocation) throws IOException, InterruptedException;

    /** Drops what the backend keeps for {@code session} (the sandbox's private {@code /tmp}). */
    default void forget(String session) {}

    @Override
    default void close() {}

    /**
     * One command to start.
     *
     * @param argv      the shell command line (already wrapped for state capture where needed)
     * @param session   the terminal session
     * @param workspace the host workspace of this call
     * @param cwd       the working directory, a view path
     * @param env       exactly the environment the command gets (before backend adjustments)
     * @param stateFile the host file the wrapper writes to, or null
     * @param stdinPipe keep stdin open as a pipe (background processes); otherwise {@code /dev/null}
     */
    record Invocation(List<String> argv, String session, Path workspace, Path cwd, Map<String, String> env,
                      Path stateFile, boolean stdinPipe) {
        public Invocation {
            argv = List.copyOf(argv);
            requireNonNull(session, "session");
            requireNonNull(workspace, "workspace");
            requireNonNull(cwd, "cwd");
            env = Map.copyOf(env);
        }
    }
}
