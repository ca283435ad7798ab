package dev.caduceus.plugin.files;

import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Keeps a file that does not come in a multipart upload (one the agent delivers): streamed into the
 * {@link BlobStore} under the same limits as an upload ({@code files.max_bytes} and what is left of the owner's
 * {@code files.quota_bytes}), then its row written with the quota checked again in the insert's transaction.
 * Thread-safe.
 */
public final class FileIntake {
    /** What became of a file. */
    public sealed interface Outcome {
        record Kept(StoredFile file) implements Outcome {}

        record TooLarge(long limit) implements Outcome {}

        record OverQuota(long used, long quota) implements Outcome {}
    }

    private final FileStore files;
    private final BlobStore blobs;
    private final FilesSettings settings;
    private final Clock clock;
    private final RunsWithFiles runs;

    /** For uploads: no file of a run. */
    public FileIntake(FileStore files, BlobStore blobs, FilesSettings settings, Clock clock) {
        this(files, blobs, settings, clock, new RunsWithFiles());
    }

    /** @param runs where a run's kept file is noted ({@code FileLibrary.keptFor}) */
    FileIntake(FileStore files, BlobStore blobs, FilesSettings settings, Clock clock, RunsWithFiles runs) {
        this.runs = runs;
        this.files = files;
        this.blobs = blobs;
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * What {@code owner} may add now: the bytes its live files hold, the most one more file may have, and the
     * largest file allowed at all (the quota aside), and the quota that holds for the key.
     */
    public record Room(long used, long limit, long maxBytes, long quota) {}

    public Room room(String owner) {
        return room(owner, Long.MAX_VALUE, Long.MAX_VALUE);
    }

    /**
     * As {@link #room(String)}, one file also at most {@code keyMaxBytes} and all of them at most {@code keyQuota} (the
     * key's own {@code --max-file-bytes} and {@code --max-storage-bytes}, which only ever lower the deployment's).
     */
    public Room room(String owner, long keyMaxBytes, long keyQuota) {
        long used = files.used(owner, clock.instant());
        long quota = Math.min(settings.quotaBytes(), keyQuota);
        long maxBytes = Math.min(settings.maxBytes(), keyMaxBytes);
        return new Room(used, Math.max(0, Math.min(maxBytes, quota - used)), maxBytes, quota);
    }

    /** Why a file past {@code room}'s limit is refused: the quota, or the largest file allowed. */
    public Outcome refusal(Room room) {
        return room.limit() < room.maxBytes() ? new Outcome.OverQuota(room.used(), room.quota())
                : new Outcome.TooLarge(room.maxBytes());
    }

    /** A workspace file delivered as a run's: its name as kept (sanitised) and what became of it. Immutable. */
    public record Delivery(String name, Outcome outcome) {}

    /**
     * Keeps the workspace file {@code relative} (a regular file, never through a link) as a file of run {@code runId}
     * of {@code owner}: purpose {@code assistants_output}, expiring after {@code keep}. Empty when there is no such
     * file, or {@code skip} says so given its kept name and size ({@code deliver_file} and {@code outputs/} share this).
     */
    public Optional<Delivery> keepRunFile(String owner, String runId, java.nio.file.Path workspace, String relative,
                                          Duration keep, java.util.function.BiPredicate<String, Long> skip) throws IOException {
        var opened = dev.caduceus.support.files.WorkspaceFiles.open(workspace, relative);
        if (opened.isEmpty()) return Optional.empty();
        try (var file = opened.get()) {
            var name = dev.caduceus.support.files.FileNames.sanitise(file.filename()).orElse("file");
            if (skip.test(name, file.bytes())) return Optional.empty();
            return Optional.of(new Delivery(name, keep(owner, name, DeliverFileTool.PURPOSE, file.content(),
                    Optional.of(keep), Optional.of(runId))));
        }
    }

    /** Keeps what {@code in} holds, streamed, within the owner's room. */
    public Outcome keep(String owner, String filename, String purpose, InputStream in, Optional<Duration> expiresAfter,
                 Optional<String> runId) throws IOException {
        var room = room(owner);
        if (room.limit() == 0) return refusal(room);
        var upload = blobs.begin();
        try {
            var buffer = new byte[64 * 1024];
            for (int n; (n = in.read(buffer)) > 0; ) {
                if (upload.bytes() + n > room.limit()) return refusal(room);
                upload.write(buffer, 0, n);
            }
            var outcome = commit(upload, owner, filename, purpose, expiresAfter, runId, room.quota());
            upload = null;
            return outcome;
        } finally {
            if (upload != null) upload.discard();
        }
    }

    /**
     * Moves a written upload into the store and writes its row, the quota checked in the insert's transaction; it
     * expires {@code expiresAfter} after it is created (its {@code created_at}).
     */
    public Outcome commit(BlobStore.Incoming upload, String owner, String filename, String purpose,
                          Optional<Duration> expiresAfter, Optional<String> runId, long quota) throws IOException {
        var contentType = upload.contentType();
        long bytes = upload.bytes();
        var sha = blobs.commit(upload);
        var created = clock.instant();
        var file = new StoredFile(FileStore.newId(), owner, filename, purpose, bytes, sha, contentType, created,
                expiresAfter.map(created::plus), runId);
        return switch (files.insert(file, quota)) {
            case FileStore.Insert.Stored stored -> {
                runId.ifPresent(runs::kept);
                yield new Outcome.Kept(stored.file());
            }
            case FileStore.Insert.OverQuota over -> new Outcome.OverQuota(over.used(), over.quota());
        };
    }
}
