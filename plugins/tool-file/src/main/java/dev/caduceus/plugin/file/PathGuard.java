package dev.caduceus.plugin.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * Turns a path argument into the file a tool may touch: {@code ~} expansion,
 * relative paths against the workspace root, normalization, the longest existing prefix resolved
 * through symlinks, the workspace boundary and the protected files.
 *
 * <p>Protected files are refused by path and by identity: a path whose target (symlinks followed)
 * has the device and inode of a protected file, as a hard link to one does, is refused too
 * ({@link ProtectedFiles}, one snapshot per guard, so per call). And nothing under
 * {@code $CADUCEUS_HOME} is reachable except the workspace, even with
 * {@code tools.file.allow_outside_workspace}: that directory holds the server's state and plugins.
 *
 * <p>Relative paths resolve against the workspace root, never the session's terminal directory:
 * that directory belongs to the terminal plugin and is not visible through the SPI.
 * Immutable; thread-safe.
 */
final class PathGuard {
    private static final List<String> WRITE_PROTECTED_NAMES =
            List.of(".bashrc", ".zshrc", ".profile", ".bash_profile", ".zprofile", ".pgpass", ".npmrc", ".pypirc");
    private static final List<String> WRITE_PROTECTED_HOME_DIRS = List.of(".ssh", ".aws", ".gnupg", ".kube");
    private static final List<String> WRITE_PROTECTED_ROOTS =
            List.of("/etc", "/usr", "/bin", "/sbin", "/boot", "/dev", "/proc", "/sys");

    private final Path workspace;
    private final FileSettings settings;
    private final ProtectedFiles.Snapshot protectedIds;
    /** {@code $CADUCEUS_HOME}, real path, and the configured workspace, the exception inside it. */
    private final Path stateDir;
    private final Path globalWorkspace;

    /**
     * @param workspace    the call's workspace; created (0700) by the caller when missing
     * @param protectedIds the identities of the protected files, taken for this call
     */
    PathGuard(Path workspace, FileSettings settings, ProtectedFiles.Snapshot protectedIds) {
        this.workspace = realPrefix(workspace.toAbsolutePath().normalize());
        this.settings = settings;
        this.protectedIds = protectedIds;
        this.stateDir = realPrefix(settings.stateDir().toAbsolutePath().normalize());
        this.globalWorkspace = realPrefix(settings.workspace().toAbsolutePath().normalize());
    }

    /** The workspace root, real path. */
    Path workspace() {
        return workspace;
    }

    /** The resolved file for reading; throws "outside the workspace" or "protected file" when the path is refused. */
    Path forRead(String raw) throws ToolFailure {
        return resolve(raw, false);
    }

    /** The resolved file for writing; throws "outside the workspace" or "protected file" when the path is refused. */
    Path forWrite(String raw) throws ToolFailure {
        return resolve(raw, true);
    }

    /** Whether a resolved path may be read (used while walking directories: skip, don't fail). */
    boolean readable(Path resolved) {
        var real = realPrefix(resolved);
        return (settings.allowOutside() || real.startsWith(workspace)) && !isProtected(real, false)
                && !inStateDir(real) && !protectedIdentity(real);
    }

    /** How results name a resolved path: relative to the workspace when inside it, else absolute. */
    String display(Path resolved) {
        if (resolved.startsWith(workspace) && !resolved.equals(workspace))
            return workspace.relativize(resolved).toString();
        return resolved.equals(workspace) ? "." : resolved.toString();
    }

    private Path resolve(String raw, boolean write) throws ToolFailure {
        Path logical;
        try {
            logical = expand(raw);
        } catch (InvalidPathException e) {
            throw new ToolFailure("Invalid path: " + raw);
        }
        var real = realPrefix(logical);
        if (isProtected(logical, write) || isProtected(real, write) || protectedIdentity(real))
            throw new ToolFailure("Access to " + raw + " is not allowed (protected file).");
        if (!settings.allowOutside() && !real.startsWith(workspace))
            throw new ToolFailure("Path is outside the workspace: " + raw + ". File tools are limited to " + workspace + ".");
        if (inStateDir(real) || underStateDirByIdentity(real))
            throw new ToolFailure("Access to " + raw + " is not allowed (protected file).");
        return real;
    }

    /**
     * {@code ~} is the server user's home; {@code /workspace} and paths under it name the workspace,
     * since that is where the terminal's sandbox mounts it (and Hermes' docker backend), so a path the
     * model saw in a command's output works here too (for every backend).
     */
    private Path expand(String raw) {
        String p = raw;
        if (p.equals("~")) return settings.home().toAbsolutePath().normalize();
        if (p.startsWith("~/")) return settings.home().resolve(p.substring(2)).toAbsolutePath().normalize();
        var path = Path.of(p).normalize();
        if (path.startsWith(MOUNTED_WORKSPACE)) return workspace.resolve(MOUNTED_WORKSPACE.relativize(path).toString()).normalize();
        return (path.isAbsolute() ? path : workspace.resolve(path)).normalize();
    }

    /** Where the sandbox shows the workspace to commands. */
    static final Path MOUNTED_WORKSPACE = Path.of("/workspace");

    /** The longest existing prefix resolved through symlinks, with the rest appended. */
    static Path realPrefix(Path absolute) {
        var existing = absolute;
        var rest = new java.util.ArrayDeque<Path>();
        while (existing != null) {
            try {
                var real = existing.toRealPath();
                for (var part : rest) real = real.resolve(part);
                return real.normalize();
            } catch (IOException e) {
                if (existing.getFileName() != null) rest.push(existing.getFileName());
                existing = existing.getParent();
            }
        }
        return absolute;
    }

    /** True when {@code real} is a protected file by identity: the same device and inode, however reached. */
    private boolean protectedIdentity(Path real) {
        if (protectedIds.files().isEmpty()) return false;
        return ProtectedFiles.identity(real).map(protectedIds.files()::contains).orElse(false);
    }

    /** True when {@code real} is {@code $CADUCEUS_HOME} or below it, and not in a workspace. */
    private boolean inStateDir(Path real) {
        return real.startsWith(stateDir) && !inWorkspace(real);
    }

    /**
     * True when an existing directory on the way to {@code real} is {@code $CADUCEUS_HOME} by identity
     * (a bind mount or another name for it), and {@code real} is not in a workspace.
     */
    private boolean underStateDirByIdentity(Path real) {
        var state = protectedIds.stateDir();
        if (state == null || inWorkspace(real)) return false;
        for (var p = real; p != null; p = p.getParent())
            if (Files.isDirectory(p) && ProtectedFiles.identity(p).map(state::equals).orElse(false)) return true;
        return false;
    }

    private boolean inWorkspace(Path real) {
        return real.startsWith(workspace) || real.startsWith(globalWorkspace);
    }

    private boolean isProtected(Path p, boolean write) {
        var home = settings.home().toAbsolutePath().normalize();
        var state = settings.stateDir().toAbsolutePath().normalize();
        return isProtected(p, write, home, state) || isProtected(p, write, realPrefix(home), realPrefix(state));
    }

    private static boolean isProtected(Path p, boolean write, Path home, Path state) {
        var name = p.getFileName() == null ? "" : p.getFileName().toString();
        var parent = p.getParent();
        boolean secret = p.equals(state.resolve("api_key")) || p.equals(state.resolve("config.yaml"))
                || name.startsWith("caduceus.db")
                || (home.resolve(".ssh").equals(parent) && name.startsWith("id_"))
                || p.equals(home.resolve(".aws/credentials")) || p.equals(home.resolve(".netrc"));
        if (secret || !write) return secret;
        if (WRITE_PROTECTED_NAMES.contains(name)) return true;
        for (var dir : WRITE_PROTECTED_HOME_DIRS) if (p.startsWith(home.resolve(dir))) return true;
        for (var root : WRITE_PROTECTED_ROOTS) if (p.startsWith(Path.of(root))) return true;
        return false;
    }

    /** Creates the workspace with mode 0700 when missing. */
    static void ensureWorkspace(Path workspace) throws IOException {
        if (Files.isDirectory(workspace, LinkOption.NOFOLLOW_LINKS) || Files.isDirectory(workspace)) return;
        Files.createDirectories(workspace);
        try {
            Files.setPosixFilePermissions(workspace, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: the default permissions stay
        }
    }
}
