package dev.caduceus.platform.batch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Durable file writes: {@link #replace} writes a temp file next to the target, forces it to disk and
 * renames it over the target with {@code ATOMIC_MOVE}, so a reader (or a process killed at any
 * moment) sees the old content or the new, never a torn file; {@link #appendUnsynced} and
 * {@link #force} let the batch runner fsync many appended lines at once.
 * Stateless.
 */
final class AtomicFiles {
    private AtomicFiles() {}

    static void replace(Path target, String content) throws IOException {
        var temp = target.resolveSibling(target.getFileName() + ".tmp");
        write(temp, content, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        moveIntoPlace(temp, target);
    }

    static void moveIntoPlace(Path temp, Path target) throws IOException {
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * Appends {@code text} without forcing it; the caller forces the file ({@link #force}) before it
     * acknowledges the line (the batch runner does it once per checkpoint write, for every line since).
     */
    static void appendUnsynced(Path file, String text) throws IOException {
        try (var channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE)) {
            var buffer = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (buffer.hasRemaining()) channel.write(buffer);
        }
    }

    /** Forces a file's content to disk. */
    static void force(Path file) throws IOException {
        try (var channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.force(false);
        }
    }

    private static void write(Path file, String content, StandardOpenOption... options) throws IOException {
        try (var channel = FileChannel.open(file, options)) {
            var buffer = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
            while (buffer.hasRemaining()) channel.write(buffer);
            channel.force(false);
        }
    }
}
