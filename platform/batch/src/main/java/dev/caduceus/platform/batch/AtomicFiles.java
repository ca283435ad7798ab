package dev.caduceus.platform.batch;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
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
        replace(target, out -> out.write(content));
    }

    /** What {@link #replace(Path, Content)} writes: text handed to a writer, never held whole. */
    @FunctionalInterface
    interface Content {
        void writeTo(Writer out) throws IOException;
    }

    /**
     * {@link #replace(Path, String)} for content too large to hold as one string: {@code content} writes
     * it through a buffer into the temp file, which is forced and renamed over {@code target}. If
     * anything fails, the temp file is deleted and {@code target} is left as it was.
     */
    static void replace(Path target, Content content) throws IOException {
        commit(prepare(target, content), target);
    }

    /**
     * The first half of {@link #replace(Path, Content)}: the temp file next to {@code target}, written
     * through a buffer but not forced (the batch runner writes it under its lock, then forces and renames
     * it with {@link #commit} outside). Deleted if {@code content} fails.
     */
    static Path prepare(Path target, Content content) throws IOException {
        var temp = target.resolveSibling(target.getFileName() + ".tmp");
        boolean written = false;
        try (var channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
             var out = new BufferedWriter(Channels.newWriter(channel, StandardCharsets.UTF_8), 1 << 16)) {
            content.writeTo(out);
            written = true;
        } finally {
            if (!written) Files.deleteIfExists(temp);
        }
        return temp;
    }

    /** The second half: forces {@code temp} to disk and renames it over {@code target}; deleted if that fails. */
    static void commit(Path temp, Path target) throws IOException {
        try {
            force(temp);
            moveIntoPlace(temp, target);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * A file's lines, read as they are needed; bytes that are no UTF-8 (a line torn mid-character)
     * become U+FFFD instead of failing the read.
     */
    static BufferedReader lines(Path file) throws IOException {
        return new BufferedReader(new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8), 1 << 16);
    }

    private static void moveIntoPlace(Path temp, Path target) throws IOException {
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
}
