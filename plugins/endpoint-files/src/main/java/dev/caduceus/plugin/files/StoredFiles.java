package dev.caduceus.plugin.files;

import dev.caduceus.support.services.FileLibrary;
import java.time.Clock;
import java.util.Optional;

/**
 * The uploads as other plugins see them ({@link FileLibrary}): a file of the asking key's (any, for the admin),
 * not expired, with the path of its bytes. Thread-safe.
 */
final class StoredFiles implements FileLibrary {
    private final FileStore files;
    private final BlobStore blobs;
    private final SignedLinks links;
    private final RunsWithFiles runs;
    private final Clock clock;

    StoredFiles(FileStore files, BlobStore blobs, SignedLinks links, RunsWithFiles runs, Clock clock) {
        this.runs = runs;
        this.files = files;
        this.blobs = blobs;
        this.links = links;
        this.clock = clock;
    }

    @Override
    public boolean keptFor(String runId) {
        return runs.any(runId);
    }

    @Override
    public String downloadLink(String fileId) {
        return links.link(fileId);
    }

    @Override
    public java.util.List<LibraryFile> delivered(String owner, boolean admin, String runId) {
        return files.ofRun(runId, clock.instant()).stream().filter(f -> admin || f.owner().equals(owner))
                .map(this::view).toList();
    }

    private LibraryFile view(StoredFile f) {
        return new LibraryFile(f.id(), f.filename(), f.bytes(), f.contentType(), blobs.path(f.sha256()).toString());
    }

    @Override
    public Optional<LibraryFile> find(String owner, boolean admin, String fileId) {
        if (fileId == null || !fileId.matches("file-[0-9a-f]{24}")) return Optional.empty();
        return files.find(fileId).filter(f -> (admin || f.owner().equals(owner)) && !f.expired(clock.instant()))
                .map(this::view);
    }
}
