package dev.caduceus.plugin.files;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends what is no longer wanted: files past their {@code expires_after} (their rows), then blobs no file names
 * and uploads never finished, once untouched for {@link #GRACE} (an upload of the same bytes touches a blob
 * before its row is written, so a blob being reused is never taken). Runs on the host's scheduler.
 */
public final class FileSweep implements Runnable {
    public static final Duration EVERY = Duration.ofMinutes(10);
    public static final Duration GRACE = Duration.ofHours(1);
    private static final Logger LOG = LoggerFactory.getLogger(FileSweep.class);

    private final FileStore files;
    private final BlobStore blobs;
    private final Clock clock;

    public FileSweep(FileStore files, BlobStore blobs, Clock clock) {
        this.files = files;
        this.blobs = blobs;
        this.clock = clock;
    }

    @Override
    public void run() {
        try {
            int expired = files.deleteExpired(clock.instant());
            int removed = blobs.sweep(files::referenced, GRACE);
            if (expired > 0 || removed > 0)
                LOG.info("Files: {} expired, {} unused blobs or unfinished uploads removed", expired, removed);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Files: the sweep failed; it runs again in {} min", EVERY.toMinutes(), e);
        }
    }
}
