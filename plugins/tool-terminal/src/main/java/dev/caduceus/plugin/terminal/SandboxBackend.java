package dev.caduceus.plugin.terminal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Commands in a bubblewrap sandbox, one {@code bwrap} per command or background process:
 * <ul>
 *   <li>own mount, PID and IPC namespaces ({@code --unshare-pid --unshare-ipc}), a new session
 *       ({@code --new-session}), {@code --die-with-parent}: when the server dies, even by
 *       {@code kill -9}, the namespace's first process dies and the kernel kills every process in it;</li>
 *   <li>read-only: {@code /usr}, {@code /etc}, the top-level {@code /bin}, {@code /sbin}, {@code /lib*}
 *       (symlinks recreated as symlinks) and {@code tools.terminal.sandbox.read_only} paths;</li>
 *   <li>read-write: the call's workspace at {@value #WORKSPACE_PATH} (also the starting directory
 *       and {@code HOME}) and the session's private {@code /tmp};</li>
 *   <li>a fresh {@code /proc} (only the sandbox's processes) and a minimal {@code /dev}; nothing
 *       else of the host: not {@code $CADUCEUS_HOME}, its key, config or database, not the
 *       server's {@code /proc}; protected paths that lie under a read-only mount are covered by an
 *       empty tmpfs;</li>
 *   <li>{@code tools.terminal.network: none} adds {@code --unshare-net} (only a private loopback).</li>
 * </ul>
 * Capabilities are dropped by bubblewrap. The server's environment reaches commands minus the
 * denylist, as on the local backend.
 */
final class SandboxBackend implements Backend {
    static final String WORKSPACE_PATH = "/workspace";
    static final Path WORKSPACE = Path.of(WORKSPACE_PATH);
    static final String STATE_PATH = "/run/caduceus/state";
    private static final Path TMP = Path.of("/tmp");
    private static final List<String> SYSTEM_DIRS = List.of("/usr", "/etc");
    private static final List<String> TOP_LEVEL = List.of("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32");

    private final Spawner spawner;
    private final Path bwrap;
    private final String version;
    private final boolean network;
    private final Path sessionsDir;
    private final List<String> layout;
    private final List<String> overlays;
    private final List<Path> readOnly;
    private final List<Path> hidden;

    /**
     * @param bwrap       the bubblewrap binary
     * @param version     what {@code bwrap --version} printed
     * @param network     whether commands share the host's network
     * @param readOnly    extra host paths mounted read-only at the same place
     * @param hidden      host paths never shown (the state dir, config and key files)
     * @param sessionsDir a private host directory for the sessions' {@code /tmp}
     */
    SandboxBackend(Spawner spawner, Path bwrap, String version, boolean network, List<Path> readOnly,
                   List<Path> hidden, Path sessionsDir) throws IOException {
        this.spawner = spawner;
        this.bwrap = bwrap;
        this.version = version;
        this.network = network;
        this.sessionsDir = sessionsDir;
        var mounts = new ArrayList<Path>();
        var args = new ArrayList<String>(List.of("--die-with-parent", "--new-session", "--unshare-pid",
                "--unshare-ipc", "--unshare-uts", "--hostname", "caduceus-sandbox"));
        if (!network) args.add("--unshare-net");
        for (var dir : SYSTEM_DIRS) roBind(Path.of(dir), args, mounts);
        for (var top : TOP_LEVEL) {
            var p = Path.of(top);
            if (Files.isSymbolicLink(p)) args.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), top));
            else if (Files.isDirectory(p)) roBind(p, args, mounts);
        }
        args.addAll(List.of("--proc", "/proc", "--dev", "/dev"));
        this.layout = List.copyOf(args);
        // after the per-command /tmp and /workspace binds, so that a read-only path under /tmp shows
        // through the session's /tmp, and the covers go over everything
        var late = new ArrayList<String>();
        for (var p : readOnly) if (Files.exists(p)) roBind(p.toAbsolutePath().normalize(), late, mounts);
        this.readOnly = List.copyOf(mounts);
        var covered = new ArrayList<Path>();
        for (var h : hidden) {
            var p = h.toAbsolutePath().normalize();
            if (!Files.exists(p) || mounts.stream().noneMatch(p::startsWith)) continue;
            covered.add(p);
            if (Files.isDirectory(p)) late.addAll(List.of("--tmpfs", p.toString()));
            else late.addAll(List.of("--ro-bind", "/dev/null", p.toString()));
        }
        this.hidden = List.copyOf(covered);
        this.overlays = List.copyOf(late);
    }

    private static void roBind(Path p, List<String> args, List<Path> mounts) {
        args.addAll(List.of("--ro-bind", p.toString(), p.toString()));
        mounts.add(p);
    }

    @Override
    public String name() {
        return "sandbox";
    }

    @Override
    public String describe() {
        return "sandbox: " + version + "; workspace at " + WORKSPACE_PATH + ", system directories read-only, "
                + "private /tmp, network " + (network ? "full" : "none");
    }

    boolean network() {
        return network;
    }

    @Override
    public Path workspaceView(Path workspace) {
        return WORKSPACE;
    }

    @Override
    public Path home(Path workspace) {
        return WORKSPACE;
    }

    @Override
    public Optional<Path> toHost(Path view, Path workspace, String session) {
        if (!view.isAbsolute()) return Optional.empty();
        var p = view.normalize();
        if (p.startsWith(WORKSPACE)) return Optional.of(workspace.resolve(WORKSPACE.relativize(p).toString()));
        if (hidden.stream().anyMatch(p::startsWith)) return Optional.empty();
        if (readOnly.stream().anyMatch(p::startsWith)) return Optional.of(p);
        if (p.startsWith(TMP)) return Optional.of(tmpOf(session).resolve(TMP.relativize(p).toString()));
        return Optional.empty();
    }

    @Override
    public String stateFileView(Path stateFile) {
        return STATE_PATH;
    }

    @Override
    public Process start(Invocation inv) throws IOException, InterruptedException {
        var tmp = tmpOf(inv.session());
        if (!Files.isDirectory(tmp))
            Files.createDirectories(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        var command = new ArrayList<String>();
        command.add(bwrap.toString());
        command.addAll(layout);
        command.addAll(List.of("--bind", tmp.toString(), "/tmp", "--bind", inv.workspace().toString(), WORKSPACE_PATH));
        if (inv.stateFile() != null) command.addAll(List.of("--bind", inv.stateFile().toString(), STATE_PATH));
        command.addAll(overlays);
        var cwd = toHost(inv.cwd(), inv.workspace(), inv.session()).filter(Files::isDirectory).isPresent()
                ? inv.cwd().toString() : WORKSPACE_PATH;
        command.addAll(List.of("--chdir", cwd, "--"));
        command.addAll(inv.argv());
        var builder = new ProcessBuilder(command).directory(inv.workspace().toFile());
        builder.environment().clear();
        builder.environment().putAll(inv.env());
        builder.environment().remove("TMPDIR");
        builder.environment().put("HOME", WORKSPACE_PATH);
        if (!inv.stdinPipe()) builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        return spawner.start(builder);
    }

    @Override
    public void forget(String session) {
        deleteTree(tmpOf(session).getParent());
    }

    private Path tmpOf(String session) {
        try {
            var digest = MessageDigest.getInstance("SHA-256").digest(session.getBytes(StandardCharsets.UTF_8));
            return sessionsDir.resolve(HexFormat.of().formatHex(digest, 0, 12)).resolve("tmp");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) return;
        try (Stream<Path> files = Files.walk(dir)) {
            for (var f : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(f);
        } catch (IOException e) {
            // best effort: what is left goes with the plugin's state directory at stop
        }
    }
}
