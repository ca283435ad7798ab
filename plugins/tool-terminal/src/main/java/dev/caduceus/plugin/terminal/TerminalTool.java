package dev.caduceus.plugin.terminal;

import static dev.caduceus.plugin.terminal.JsonText.obj;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.Tool.Note;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The {@code terminal} tool: validates the arguments, applies the long-lived
 * foreground guard and the dangerous-command approval, checks {@code workdir}, then runs
 * the command in the session's directory and environment, in the foreground
 * ({@link ForegroundCommand}) or in the background ({@link ProcessRegistry}). Thread-safe.
 */
final class TerminalTool implements Tool {
    static final String DESCRIPTION = "Run a shell command (/bin/bash) in the session's "
            + "working directory, which starts at the workspace root. The working directory and exported variables "
            + "persist between calls. Returns JSON with output (stdout and stderr merged, long output truncated), "
            + "exit_code and error. Prefer read_file, search_files, patch and write_file over cat/grep/sed/heredocs "
            + "for reading, searching and editing files. Never use nohup or '&': set background=true for servers and "
            + "long jobs, then manage them with the process tool.";
    private static final Pattern WORKDIR_CHARS = Pattern.compile("[A-Za-z0-9/\\\\:_\\-.~ +@=,]+");

    private final ToolSpec spec;
    private final TerminalSettings settings;
    private final ShellSessions sessions;
    private final ForegroundCommand foreground;
    private final ProcessRegistry registry;
    private final DangerousCommands dangerous;
    private final ApprovalGate gate;
    private final Path stateDir;
    private final Backend backend;
    private final String promptSection; // the backend is fixed: the text is made once, not at every turn
    private final Optional<Note> note;

    /**
     * @param stateDir {@code $CADUCEUS_HOME}, for the credential-write rule
     * @param warning  the operator warning of an {@code auto} backend that fell back to local
     * @param blocked  counts commands the guard refused, by reason ({@code dangerous_command}, {@code workdir})
     */
    private final dev.caduceus.spi.metrics.Metrics.Counter blocked;

    TerminalTool(ObjectNode schema, TerminalSettings settings, ShellSessions sessions, ForegroundCommand foreground,
                 ProcessRegistry registry, DangerousCommands dangerous, ApprovalGate gate, Path stateDir,
                 Backend backend, Optional<String> warning, dev.caduceus.spi.metrics.Metrics.Counter blocked) {
        this.blocked = blocked;
        this.spec = new ToolSpec("terminal", DESCRIPTION + " Backend: " + backend.describe() + ".", schema, "terminal",
                List.of(), ToolRisk.EXECUTES, 100_000, false, false, "💻");
        this.backend = backend;
        this.promptSection = backend instanceof SandboxBackend sandbox
                ? "Terminal backend: sandbox. Commands run in an isolated sandbox in which the workspace is "
                  + SandboxBackend.WORKSPACE_PATH + " (file tools accept " + SandboxBackend.WORKSPACE_PATH
                  + " paths too); system directories are read-only; /tmp is private to this session; network: "
                  + (sandbox.network() ? "full" : "none") + "."
                : "Terminal backend: local.";
        this.note = Optional.of(warning.map(w -> new Note(w, true)).orElseGet(() -> new Note(backend.describe(), false)));
        this.settings = settings;
        this.sessions = sessions;
        this.foreground = foreground;
        this.registry = registry;
        this.dangerous = dangerous;
        this.gate = gate;
        this.stateDir = stateDir;
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public Optional<Note> note() {
        return note;
    }

    @Override
    public String systemPromptSection(String memoryScope) {
        return promptSection;
    }

    /** The sandbox mounts the workspace at {@value SandboxBackend#WORKSPACE_PATH}; the local backend uses the host path. */
    @Override
    public Optional<String> workspaceMount() {
        return backend instanceof SandboxBackend ? Optional.of(SandboxBackend.WORKSPACE_PATH) : Optional.empty();
    }

    /** A stopped or disconnected run reaps its session's background processes (a completed one does not). */
    @Override
    public void runInterrupted(String sessionId) {
        try {
            registry.killSession(sessionId);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public ToolResult call(ToolCall call, ToolContext ctx) throws Exception {
        var args = call.arguments();
        var commandNode = args.get("command");
        if (commandNode == null || !commandNode.isTextual())
            return failed("Invalid command: expected string, got " + Args.typeName(commandNode), "error");
        var command = commandNode.asText();
        boolean background;
        Integer timeout;
        String workdir;
        try {
            background = Args.bool(args, "background", false);
            timeout = Args.integer(args, "timeout", null, 1);
            workdir = Args.string(args, "workdir", null);
            Args.bool(args, "pty", false);
        } catch (IllegalArgumentException e) {
            return new ToolResult.Error(e.getMessage(), false);
        }
        if (!background && timeout != null && timeout > settings.maxForegroundTimeout())
            return new ToolResult.Error("Foreground timeout " + timeout + "s exceeds the maximum of "
                    + settings.maxForegroundTimeout() + "s. Use background=true for long-running commands.", false);
        if (!background) {
            var advice = LongLivedGuard.check(command);
            if (advice.isPresent()) return failed(advice.get(), "error");
        }
        var workspace = ctx.workspace();
        var session = ctx.sessionId();
        var state = sessions.state(session, workspace);
        var dir = workdir == null || !WORKDIR_CHARS.matcher(workdir).matches() ? state.cwd()
                : resolve(state.cwd(), workdir, backend.home(workspace));

        String approval = null;
        var match = dangerous.check(command, backend.workspaceView(workspace), stateDir, dir);
        if (match.isPresent()) {
            switch (gate.decide(match.get(), command, session, ctx)) {
                case ApprovalGate.Decision.Blocked b -> {
                    blocked.inc("dangerous_command");
                    return failed(b.error(), "blocked");
                }
                case ApprovalGate.Decision.Run r -> approval = r.approval();
            }
        }
        if (workdir != null) {
            var problem = checkWorkdir(workdir, dir, workspace, session);
            if (problem != null) {
                blocked.inc("workdir");
                return failed(problem, "blocked");
            }
        }
        var env = sessions.environment(state, session, workspace);
        return background ? startBackground(command, workspace, dir, env, session, approval)
                : runForeground(command, workspace, dir, env, timeout == null ? settings.timeoutSeconds() : timeout, ctx,
                        approval, workdir == null ? null : state.cwd());
    }

    private ToolResult runForeground(String command, Path workspace, Path dir, Map<String, String> env, int timeout,
                                     ToolContext ctx, String approval, Path keepCwd) throws IOException, InterruptedException {
        var outcome = foreground.run(command, workspace, dir, env, timeout, ctx.cancellation(), sessions,
                ctx.sessionId(), keepCwd);
        var result = obj("output", outcome.output(), "exit_code", outcome.exitCode(),
                "error", outcome.ending() == ForegroundCommand.Ending.TIMED_OUT
                        ? "Command timed out after " + timeout + " seconds" : null);
        if (outcome.ending() == ForegroundCommand.Ending.EXITED)
            ExitCodes.meaning(command, outcome.exitCode()).ifPresent(m -> result.put("exit_code_meaning", m));
        if (approval != null) result.put("approval", approval);
        return new ToolResult.Ok(JsonText.write(result));
    }

    private ToolResult startBackground(String command, Path workspace, Path dir, Map<String, String> env,
                                       String session, String approval) throws IOException, InterruptedException {
        BackgroundProcess process;
        try {
            process = registry.start(session, command, workspace, dir, env);
        } catch (ProcessRegistry.LimitReachedException e) {
            return failed(e.getMessage(), "error");
        }
        var result = obj("output", "Background process started", "session_id", process.id(), "pid", process.pid(),
                "exit_code", 0, "error", null,
                "hint", "Use the process tool (poll, log, wait, kill) with this session_id.");
        if (approval != null) result.put("approval", approval);
        return new ToolResult.Ok(JsonText.write(result));
    }

    /**
     * Null when {@code workdir} is acceptable (exists, inside the workspace, allowed characters only), else the reason. {@code dir} is a view
     * path; the checks look at the host path behind it (through symlinks).
     */
    private String checkWorkdir(String workdir, Path dir, Path workspace, String session) throws IOException {
        if (!WORKDIR_CHARS.matcher(workdir).matches()) return "workdir contains disallowed characters";
        var host = backend.toHost(dir, workspace, session);
        if (host.isEmpty() && !settings.allowOutsideWorkspace() && !dir.startsWith(backend.workspaceView(workspace)))
            return "workdir is outside the workspace";
        if (host.isEmpty() || !Files.isDirectory(host.get())) return "workdir does not exist or is not a directory: " + workdir;
        if (settings.allowOutsideWorkspace()) return null;
        var root = Files.exists(workspace) ? workspace.toRealPath() : workspace.toAbsolutePath().normalize();
        return host.get().toRealPath().startsWith(root) ? null : "workdir is outside the workspace";
    }

    private static Path resolve(Path cwd, String workdir, Path home) {
        var expanded = workdir.equals("~") || workdir.startsWith("~/") ? home + workdir.substring(1) : workdir;
        return cwd.resolve(expanded).normalize();
    }

    /** The shape of a refused command: {@code {"output": "", "exit_code": -1, "error": …, "status": …}}. */
    private static ToolResult failed(String error, String status) {
        return new ToolResult.Ok(JsonText.write(obj("output", "", "exit_code", -1, "error", error, "status", status)));
    }
}
