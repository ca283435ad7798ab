package dev.caduceus.plugin.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The server's secret files by identity (device and inode), so that a hard link or a symlink to one
 * is refused like the file itself, whatever its path: {@code $CADUCEUS_HOME}'s
 * {@code api_key}, {@code config.yaml}, {@code caduceus.db} with its {@code -wal}, {@code -shm} and
 * {@code -journal}, {@code .env} and every other regular file directly in it (unless the workspace
 * is {@code $CADUCEUS_HOME} itself), {@code ~/.ssh/id_*}, {@code ~/.aws/credentials} and
 * {@code ~/.netrc}; the host's other protected files ({@code GlobalConfig.protectedPaths}: a
 * configuration file given with {@code --config}); and the identity of {@code $CADUCEUS_HOME} itself.
 *
 * <p>The identities are collected when the plugin builds its tools, and as files come and go
 * ({@code caduceus.db-wal} appears after start, a rotated key file is a new inode) {@link #current()}
 * stats the paths again and adds what it finds to those; a file tool takes one snapshot per call.
 * The start-up identities stay protected so that a hard link made to a file that was replaced since
 * (an edited {@code config.yaml} is a new inode; the old one may still hold a live key) stays
 * refused. Immutable; thread-safe.
 */
final class ProtectedFiles {
    private static final List<String> STATE_FILES = List.of("api_key", "api_key.tmp", "config.yaml", "caduceus.db",
            "caduceus.db-wal", "caduceus.db-shm", "caduceus.db-journal", ".env");

    private final Path state;
    private final Path home;
    private final List<Path> named;
    private final boolean workspaceIsState;
    private final Snapshot atStart;

    /** A file's identity: device and inode where the {@code unix} view has them, else the file key. */
    record FileId(Object device, Object inode) {}

    /**
     * The identities found by one round of stats.
     *
     * @param files    the protected files that exist now
     * @param stateDir {@code $CADUCEUS_HOME}, or null when it does not exist
     */
    record Snapshot(Set<FileId> files, FileId stateDir) {
        Snapshot {
            files = Set.copyOf(files);
        }
    }

    ProtectedFiles(FileSettings settings) {
        this.state = settings.stateDir().toAbsolutePath().normalize();
        this.home = settings.home().toAbsolutePath().normalize();
        this.named = settings.protectedPaths().stream().map(p -> p.toAbsolutePath().normalize()).toList();
        this.workspaceIsState = PathGuard.realPrefix(settings.workspace().toAbsolutePath().normalize())
                .equals(PathGuard.realPrefix(state));
        this.atStart = stat();
    }

    /** The start-up identities plus those of every protected path statted now. */
    Snapshot current() {
        var now = stat();
        if (atStart.files().containsAll(now.files()) && java.util.Objects.equals(atStart.stateDir(), now.stateDir()))
            return atStart;
        var ids = new HashSet<>(atStart.files());
        ids.addAll(now.files());
        return new Snapshot(ids, now.stateDir());
    }

    private Snapshot stat() {
        var paths = new ArrayList<Path>();
        for (var name : STATE_FILES) paths.add(state.resolve(name));
        if (!workspaceIsState) paths.addAll(children(state, "", true));
        paths.addAll(children(home.resolve(".ssh"), "id_", false));
        paths.add(home.resolve(".aws/credentials"));
        paths.add(home.resolve(".netrc"));
        for (var p : named) if (!Files.isDirectory(p)) paths.add(p); // the config file given with --config
        var ids = new HashSet<FileId>();
        for (var p : paths) identity(p).ifPresent(ids::add);
        return new Snapshot(ids, identity(state).orElse(null));
    }

    /**
     * The identity of the file {@code path} names, following symlinks; empty when there is none (it
     * does not exist, or the file system gives neither device and inode nor a file key).
     */
    static Optional<FileId> identity(Path path) {
        try {
            var unix = Files.readAttributes(path, "unix:dev,ino");
            var dev = unix.get("dev");
            var ino = unix.get("ino");
            if (dev != null && ino != null) return Optional.of(new FileId(dev, ino));
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            // no unix view here: the file key below
        } catch (IOException e) {
            return Optional.empty();
        }
        try {
            var key = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
            return key == null ? Optional.empty() : Optional.of(new FileId(key, null));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The entries (with {@code regularOnly}: the regular files, or symlinks to one) directly in {@code dir} whose names start with {@code prefix}. */
    private static List<Path> children(Path dir, String prefix, boolean regularOnly) {
        var out = new ArrayList<Path>();
        if (!Files.isDirectory(dir)) return out;
        try (var list = Files.list(dir)) {
            list.filter(p -> p.getFileName().toString().startsWith(prefix))
                    .filter(p -> !regularOnly || Files.isRegularFile(p))
                    .forEach(out::add);
        } catch (IOException | RuntimeException e) {
            // unreadable: nothing to add; the named files are still statted one by one
        }
        return out;
    }
}
