package dev.caduceus.plugin.files;

import dev.caduceus.support.files.FileNames;
import dev.caduceus.support.files.ContentSniffer;
import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Optional;

/**
 * One file object: who uploaded it, what it is called and for what, its bytes (by hash) and when it expires.
 * Immutable.
 *
 * @param id          {@code file-} and 24 hex digits
 * @param owner       the name of the key that uploaded it
 * @param filename    the sanitised name ({@link FileNames})
 * @param purpose     {@code user_data} or {@code assistants}
 * @param sha256      the blob's name in the {@link BlobStore}
 * @param contentType sniffed from the first bytes ({@link ContentSniffer}), never the client's
 * @param runId       the run whose agent delivered it ({@code deliver_file}); empty for an upload
 */
public record StoredFile(String id, String owner, String filename, String purpose, long bytes, String sha256,
                         String contentType, Instant createdAt, Optional<Instant> expiresAt, Optional<String> runId) {
    public StoredFile {
        requireNonNull(id, "id");
        requireNonNull(owner, "owner");
        requireNonNull(filename, "filename");
        requireNonNull(purpose, "purpose");
        requireNonNull(sha256, "sha256");
        requireNonNull(contentType, "contentType");
        requireNonNull(createdAt, "createdAt");
        requireNonNull(expiresAt, "expiresAt");
        requireNonNull(runId, "runId");
    }

    /** An upload: no run. */
    public StoredFile(String id, String owner, String filename, String purpose, long bytes, String sha256,
                      String contentType, Instant createdAt, Optional<Instant> expiresAt) {
        this(id, owner, filename, purpose, bytes, sha256, contentType, createdAt, expiresAt, Optional.empty());
    }

    /** Whether it has expired at {@code now} (it is then gone for its owner, before the sweep deletes it). */
    public boolean expired(Instant now) {
        return expiresAt.isPresent() && !now.isBefore(expiresAt.get());
    }
}
