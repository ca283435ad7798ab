package dev.caduceus.plugin.files;

import dev.caduceus.support.files.ContentSniffer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The files' bytes, content-addressed under one directory ({@code files.dir}): {@code blobs/ab/<sha256>}, written
 * once through {@code incoming/} and moved into place, so a blob is either whole or absent and two uploads of the
 * same bytes share it. Blobs no row names are removed by {@link #sweep} once older than a grace period (an upload
 * that reuses one touches it first). Thread-safe: every operation works on files only.
 */
public final class BlobStore {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private final Path blobs;
    private final Path incoming;
    private final Clock clock;

    public BlobStore(Path root, Clock clock) {
        this.blobs = root.resolve("blobs");
        this.incoming = root.resolve("incoming");
        this.clock = clock;
        try {
            Files.createDirectories(blobs);
            Files.createDirectories(incoming);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the files directory " + root, e);
        }
    }

    /** A new upload's bytes, written to a private temporary file as they arrive. */
    public Incoming begin() throws IOException {
        var file = Files.createTempFile(incoming, "upload-", ".part");
        return new Incoming(file, Files.newOutputStream(file, StandardOpenOption.WRITE));
    }

    /** Moves a finished upload into place as its blob (or drops it when that blob exists); its hash. */
    public String commit(Incoming upload) throws IOException {
        upload.close();
        var sha = upload.sha256();
        var target = path(sha);
        Files.createDirectories(target.getParent());
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            Files.setLastModifiedTime(target, FileTime.from(clock.instant()));
            Files.deleteIfExists(upload.file);
            return sha;
        }
        Files.setLastModifiedTime(upload.file, FileTime.from(clock.instant())); // the sweep's grace counts from here
        try {
            Files.move(upload.file, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException raced) {
            Files.deleteIfExists(upload.file);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(upload.file, target, StandardCopyOption.REPLACE_EXISTING);
        }
        return sha;
    }

    /** The blob's bytes; throws {@link java.nio.file.NoSuchFileException} when it is gone. */
    public InputStream open(String sha256) throws IOException {
        return Files.newInputStream(path(sha256), LinkOption.NOFOLLOW_LINKS);
    }

    /** Where blob {@code sha256} lives. */
    public Path path(String sha256) {
        if (!SHA256.matcher(sha256).matches()) throw new IllegalArgumentException("not a sha256: " + sha256);
        return blobs.resolve(sha256.substring(0, 2)).resolve(sha256);
    }

    /**
     * Removes the blobs no row names ({@code referencedAmong} answers which of a set of hashes rows name) and
     * unfinished uploads, each once untouched for {@code grace}; returns how many files it removed.
     */
    public int sweep(Function<Set<String>, Set<String>> referencedAmong, Duration grace) throws IOException {
        var before = clock.instant().minus(grace);
        int removed = 0;
        try (var parts = Files.list(incoming)) {
            for (var part : (Iterable<Path>) parts::iterator)
                if (Files.getLastModifiedTime(part, LinkOption.NOFOLLOW_LINKS).toInstant().isBefore(before)
                        && Files.deleteIfExists(part)) removed++;
        }
        try (var dirs = Files.list(blobs)) {
            for (var dir : (Iterable<Path>) dirs::iterator) {
                if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) continue;
                var old = new java.util.HashSet<String>();
                try (var files = Files.list(dir)) {
                    for (var blob : (Iterable<Path>) files::iterator)
                        if (Files.getLastModifiedTime(blob, LinkOption.NOFOLLOW_LINKS).toInstant().isBefore(before))
                            old.add(blob.getFileName().toString());
                }
                if (old.isEmpty()) continue;
                var kept = referencedAmong.apply(Set.copyOf(old));
                for (var name : old) if (!kept.contains(name) && Files.deleteIfExists(dir.resolve(name))) removed++;
            }
        }
        return removed;
    }

    /**
     * One upload being written: counts its bytes, hashes them and keeps the head for {@link ContentSniffer}.
     * Confined to the uploading thread.
     */
    public static final class Incoming extends OutputStream {
        private final Path file;
        private final OutputStream out;
        private final MessageDigest digest;
        private final byte[] head = new byte[ContentSniffer.HEAD];
        private int headLength;
        private long bytes;
        private String sha256;
        private boolean closed;

        private Incoming(Path file, OutputStream out) {
            this.file = file;
            this.out = out;
            try {
                this.digest = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (headLength < head.length) {
                int n = Math.min(len, head.length - headLength);
                System.arraycopy(b, off, head, headLength, n);
                headLength += n;
            }
            digest.update(b, off, len);
            out.write(b, off, len);
            bytes += len;
        }

        public long bytes() {
            return bytes;
        }

        /** What was written, read again from its start (after {@link #close}). */
        public java.io.InputStream reread() throws IOException {
            return new java.io.BufferedInputStream(Files.newInputStream(file), 64 * 1024);
        }

        /** The sniffed type of what was written ({@link ContentSniffer}). */
        public String contentType() {
            return ContentSniffer.sniff(head, headLength, bytes == headLength);
        }

        String sha256() {
            if (sha256 == null) throw new IllegalStateException("not finished");
            return sha256;
        }

        @Override
        public void close() throws IOException {
            if (closed) return;
            closed = true;
            out.close();
            sha256 = HexFormat.of().formatHex(digest.digest());
        }

        /** Drops it: closes and deletes the temporary file. */
        public void discard() {
            try {
                if (!closed) {
                    closed = true;
                    out.close();
                }
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // the sweep removes it later
            }
        }
    }
}
