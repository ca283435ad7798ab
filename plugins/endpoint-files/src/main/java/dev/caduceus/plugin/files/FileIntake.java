package dev.caduceus.plugin.files;

import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

/**
 * Keeps a file that does not come in a multipart upload (one the agent delivers): streamed into the
 * {@link BlobStore} under the same limits as an upload ({@code files.max_bytes} and what is left of the owner's
 * {@code files.quota_bytes}), then its row written with the quota checked again in the insert's transaction.
 * Thread-safe.
 */
final class FileIntake {
    /** What became of a file. */
    sealed interface Outcome {
        record Kept(StoredFile file) implements Outcome {}

        record TooLarge(long limit) implements Outcome {}

        record OverQuota(long used, long quota) implements Outcome {}
    }

    private final FileStore files;
    private final BlobStore blobs;
    private final FilesSettings settings;
    private final Clock clock;

    FileIntake(FileStore files, BlobStore blobs, FilesSettings settings, Clock clock) {
        this.files = files;
        this.blobs = blobs;
        this.settings = settings;
        this.clock = clock;
    }

    Outcome keep(String owner, String filename, String purpose, InputStream in, Optional<Instant> expiresAt,
                 Optional<String> runId) throws IOException {
        var now = clock.instant();
        long used = files.used(owner, now);
        long left = settings.quotaBytes() - used;
        if (left <= 0) return new Outcome.OverQuota(used, settings.quotaBytes());
        long limit = Math.min(settings.maxBytes(), left);
        var upload = blobs.begin();
        try {
            var buffer = new byte[64 * 1024];
            for (int n; (n = in.read(buffer)) > 0; ) {
                if (upload.bytes() + n > limit)
                    return limit < settings.maxBytes() ? new Outcome.OverQuota(used, settings.quotaBytes())
                            : new Outcome.TooLarge(settings.maxBytes());
                upload.write(buffer, 0, n);
            }
            var contentType = upload.contentType();
            long bytes = upload.bytes();
            var sha = blobs.commit(upload);
            upload = null;
            var file = new StoredFile(FileStore.newId(), owner, filename, purpose, bytes, sha, contentType, now, expiresAt,
                    runId);
            return switch (files.insert(file, settings.quotaBytes())) {
                case FileStore.Insert.Stored stored -> new Outcome.Kept(stored.file());
                case FileStore.Insert.OverQuota over -> new Outcome.OverQuota(over.used(), over.quota());
            };
        } finally {
            if (upload != null) upload.discard();
        }
    }
}
