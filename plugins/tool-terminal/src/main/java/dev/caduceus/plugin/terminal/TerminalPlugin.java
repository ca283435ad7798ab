package dev.caduceus.plugin.terminal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.Scheduler;
import dev.caduceus.spi.config.PluginConfig.Setting;
import dev.caduceus.spi.tool.Tool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Contributes the {@code terminal} and {@code process} tools (toolset {@code terminal}).
 * {@link #start} reads {@code tools.terminal.*}, {@code tools.process.*} and
 * {@code approvals.mode}, creates the workspace (0700) and a private directory for the shell state
 * files and the sandbox's per-session {@code /tmp}, picks the backend ({@link BackendChoice}: the
 * bubblewrap sandbox when it works, else local with a warning), and schedules the lifetime reaper of
 * background processes; {@link #stop} kills every background process.
 *
 * <p>Session end: the runtime does not report it yet. When it does, call {@link #endSession} from
 * that hook to kill the session's background processes and drop its directory, environment and
 * approval allowlist; until then they live until the lifetime limit, the LRU bound or shutdown.
 */
public final class TerminalPlugin implements PlatformPlugin {
    private static final System.Logger LOG = System.getLogger(TerminalPlugin.class.getName());
    private static final Duration REAP_PERIOD = Duration.ofSeconds(30);

    private final Duration killGrace;
    private Path stateDir;
    private ProcessRegistry registry;
    private ShellSessions sessions;
    private ApprovalGate gate;
    private List<Tool> tools = List.of();
    private Scheduler.Task reaper;
    private Spawner spawner;
    private Backend backend;

    public TerminalPlugin() {
        this(Duration.ofSeconds(2));
    }

    /** For tests: a shorter SIGTERM → SIGKILL grace period. */
    TerminalPlugin(Duration killGrace) {
        this.killGrace = killGrace;
    }

    /** What {@link TerminalSettings} reads, and {@code approvals.mode}. */
    @Override
    public List<Setting> settings() {
        return TerminalKeys.ALL;
    }

    @Override
    public void start(PlatformContext ctx) throws IOException {
        var mode = ctx.section("approvals").string("mode", TerminalKeys.APPROVALS_MODE.defaultValue()); // checked at boot
        var settings = TerminalSettings.from(ctx.section("tools"), mode).withKillGrace(killGrace);
        var workspace = ctx.global().workspace();
        if (!Files.isDirectory(workspace))
            Files.createDirectories(workspace, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        stateDir = Files.createTempDirectory("caduceus-terminal-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        spawner = new Spawner();
        BackendChoice.Chosen chosen;
        try {
            chosen = BackendChoice.choose(settings.sandbox(), spawner, ctx.global().protectedPaths(), stateDir);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while probing the sandbox", e);
        }
        backend = chosen.backend();
        // the banner and `caduceus plugins` show the backend through the tool's note; a warning is logged
        // too, for batch runs, which print no banner
        chosen.warning().ifPresent(w -> LOG.log(System.Logger.Level.WARNING, "terminal: {0}", w));
        registry = new ProcessRegistry(settings, ctx.clock(), backend);
        sessions = new ShellSessions(System.getenv(), settings, backend);
        gate = new ApprovalGate(settings.approvalsOff(), PermanentAllowlist.load(ctx.database(), ctx.clock()));
        var dangerous = new DangerousCommands("root".equals(System.getProperty("user.name")));
        var json = ctx.json();
        tools = List.of(
                new TerminalTool((ObjectNode) json.readTree(Schemas.TERMINAL), settings, sessions,
                        new ForegroundCommand(settings, stateDir, backend), registry, dangerous, gate,
                        ctx.global().stateDir(), backend, chosen.warning(),
                        ctx.metrics().counter("blocked", "Terminal commands the guard refused (a dangerous command "
                                + "denied or without an approval channel, a workdir outside the workspace), by reason",
                                "reason")),
                new ProcessTool((ObjectNode) json.readTree(Schemas.PROCESS), registry, settings));
        reaper = ctx.scheduler().scheduleWithFixedDelay("terminal: reap background processes past their lifetime",
                REAP_PERIOD, REAP_PERIOD, () -> {
                    try {
                        registry.reapExpired();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
    }

    @Override
    public List<Tool> tools(PlatformContext ctx) {
        return tools;
    }

    /** The session-end hook (not called by the runtime yet): kills and forgets everything of {@code session}. */
    public void endSession(String session) throws InterruptedException {
        registry.killSession(session);
        sessions.forget(session);
        gate.forget(session);
    }

    @Override
    public void stop() throws Exception {
        if (reaper != null) reaper.cancel();
        if (registry != null) registry.killAll();
        if (backend != null) backend.close();
        if (spawner != null) spawner.close();
        if (stateDir != null) SandboxBackend.deleteTree(stateDir);
    }
}
