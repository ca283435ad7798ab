package dev.caduceus.plugin.file;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.UUID;

/**
 * Atomic file replacement: the bytes go to a temp file in the target's directory, which is then
 * renamed over the target ({@code ATOMIC_MOVE}), so readers see the old or the new file, never a
 * part. An existing file's POSIX mode is kept. Stateless.
 */
final class AtomicFiles {
    private AtomicFiles() {}

    /** A temp file written next to {@code target}, not yet moved in. */
    record Staged(Path temp, Path target) {
        /** Renames the temp file over the target. */
        void commit() throws IOException {
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }

        /** Deletes the temp file if it is still there. */
        void discard() {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // best effort: a leftover temp file is harmless and named as ours
            }
        }
    }

    /** Creates the parent directories when missing; returns whether any was created. */
    static boolean createParents(Path target) throws IOException {
        var parent = target.getParent();
        if (parent == null || Files.isDirectory(parent)) return false;
        Files.createDirectories(parent);
        return true;
    }

    /** Writes {@code bytes} to a temp file beside {@code target} (parents must exist). */
    static Staged stage(Path target, byte[] bytes) throws IOException {
        if (Files.isDirectory(target)) throw new IOException(target + " is a directory");
        var temp = target.resolveSibling("." + target.getFileName() + ".caduceus-" + UUID.randomUUID() + ".tmp");
        try {
            Files.write(temp, bytes);
            copyMode(target, temp);
            return new Staged(temp, target);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
    }

    /** Writes {@code bytes} to {@code target} atomically. */
    static void write(Path target, byte[] bytes) throws IOException {
        var staged = stage(target, bytes);
        try {
            staged.commit();
        } finally {
            staged.discard();
        }
    }

    private static void copyMode(Path from, Path to) throws IOException {
        if (!Files.isRegularFile(from)) return;
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(from);
            Files.setPosixFilePermissions(to, mode);
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system
        }
    }
}
