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
 * moment) sees the old content or the new, never a torn file; {@link #append} appends and forces.
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

    /** Appends {@code text} and forces it to disk (batch.md §6.1: flush + fsync per line). */
    static void append(Path file, String text) throws IOException {
        write(file, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
    }

    private static void write(Path file, String content, StandardOpenOption... options) throws IOException {
        try (var channel = FileChannel.open(file, options)) {
            var buffer = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
            while (buffer.hasRemaining()) channel.write(buffer);
            channel.force(false);
        }
    }
}
