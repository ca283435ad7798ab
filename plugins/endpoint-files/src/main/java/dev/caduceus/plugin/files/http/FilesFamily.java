package dev.caduceus.plugin.files.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.plugin.files.BlobStore;
import dev.caduceus.plugin.files.FileIntake;
import dev.caduceus.plugin.files.FileStore;
import dev.caduceus.plugin.files.FilesSettings;
import dev.caduceus.plugin.files.SignedLinks;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.http.Routes;
import java.time.Clock;

/**
 * The {@code files} family under {@code /v1/files}, and its capability: {@code features.files} with the limits.
 * Immutable; handlers are thread-safe.
 */
public final class FilesFamily implements EndpointFamily {
    static final String BASE = "/v1/files";
    /** Room for the fields and the multipart framing around the largest file. */
    static final long FRAMING_BYTES = 64 * 1024;

    private final FilesSettings settings;
    private final UploadHandler upload;
    private final FileRoutes routes;

    public FilesFamily(FileStore files, BlobStore blobs, SignedLinks links, FilesSettings settings, Clock clock) {
        this.settings = settings;
        this.upload = new UploadHandler(new FileIntake(files, blobs, settings, clock), blobs);
        this.routes = new FileRoutes(files, blobs, links, clock);
    }

    @Override public String id() { return "files"; }

    @Override public String basePath() { return BASE; }

    @Override
    public void routes(Routes r) {
        r.upload(BASE, "files", settings.maxBytes() + FRAMING_BYTES, upload);
        r.get(BASE, null, routes::list);
        r.get(BASE + "/{file_id}", null, routes::retrieve);
        r.get(BASE + "/{file_id}/content", "file_content", routes::content);
        r.delete(BASE + "/{file_id}", null, routes::delete);
        // without the key: a signed link from a chat answer, checked by the handler (SignedLinks)
        r.publicGet(BASE + "/{file_id}/download", "file_download", routes::download);
    }

    @Override
    public ObjectNode features() {
        var files = JsonNodeFactory.instance.objectNode();
        files.put("max_bytes", settings.maxBytes()).put("quota_bytes", settings.quotaBytes());
        var purposes = files.putArray("purposes");
        UploadHandler.PURPOSES.forEach(purposes::add);
        var outputs = files.putObject("outputs"); // what a run writes under outputs/ is delivered
        outputs.put("enabled", settings.outputs());
        if (settings.outputs()) outputs.put("directory", "outputs/").put("max_files_per_run", settings.outputsMaxFiles());
        var node = JsonNodeFactory.instance.objectNode();
        node.set("files", files);
        return node;
    }
}
