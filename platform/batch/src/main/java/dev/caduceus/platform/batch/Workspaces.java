package dev.caduceus.platform.batch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each prompt's working directory: the entry's {@code cwd} (relative to
 * {@code tools.workspace}, created if missing; absolute must exist; inside the workspace unless
 * {@code tools.file.allow_outside_workspace}), else a fresh {@code <workspace>/batch/<run>/task_<i>},
 * emptied first. The agent's tool calls of session {@code task_<i>} run there ({@link #of}).
 * Thread-safe.
 */
final class Workspaces {
    /** A {@code cwd} or image the prompt cannot run with; the prompt fails with this message. */
    static final class WorkspaceException extends Exception {
        WorkspaceException(String message) {
            super(message);
        }
    }

    private final Path workspace;
    private final Path runRoot;
    private final boolean allowOutside;
    private final String terminalBackend;
    private final Map<String, Path> bySession = new ConcurrentHashMap<>();

    Workspaces(Path workspace, String runName, boolean allowOutside, String terminalBackend) {
        this.workspace = workspace.toAbsolutePath().normalize();
        this.runRoot = this.workspace.resolve("batch").resolve(runName);
        this.allowOutside = allowOutside;
        this.terminalBackend = terminalBackend;
    }

    static String taskId(int promptIndex) {
        return "task_" + promptIndex;
    }

    Path runRoot() {
        return runRoot;
    }

    /** The working directory of a session's tool calls; the workspace for unknown sessions. */
    Path of(String sessionId) {
        return sessionId == null ? workspace : bySession.getOrDefault(sessionId, workspace);
    }

    Path prepare(Dataset.Entry entry) throws WorkspaceException, IOException {
        if (entry.image() != null && !terminalBackend.equals("docker"))
            throw new WorkspaceException("Dataset entry needs a container image but tools.terminal.backend is '"
                    + terminalBackend + "'");
        if (entry.image() != null)
            throw new WorkspaceException("Per-prompt container images are not supported by this Caduceus build: "
                    + entry.image());
        Path dir;
        if (entry.cwd() != null) {
            var given = Path.of(entry.cwd());
            if (given.isAbsolute()) {
                dir = given.normalize();
                if (!Files.isDirectory(dir)) throw new WorkspaceException("cwd does not exist: " + entry.cwd());
            } else {
                dir = workspace.resolve(given).normalize();
            }
            if (!allowOutside && !dir.startsWith(workspace))
                throw new WorkspaceException("cwd " + entry.cwd() + " lies outside the workspace " + workspace
                        + " (tools.file.allow_outside_workspace is false)");
            Files.createDirectories(dir);
        } else {
            dir = runRoot.resolve(taskId(entry.promptIndex()));
            PromptRunner.deleteTree(dir);
            Files.createDirectories(dir);
        }
        bySession.put(taskId(entry.promptIndex()), dir);
        return dir;
    }

    void cleanUp(Dataset.Entry entry) {
        bySession.remove(taskId(entry.promptIndex()));
    }
}
