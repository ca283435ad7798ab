package dev.caduceus.plugin.files.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.plugin.files.StoredFile;

/** A file as OpenAI's File object shows it ({@code status} is always {@code processed}: nothing is processed later). */
final class FileView {
    private FileView() {}

    static ObjectNode of(StoredFile file) {
        var node = JsonNodeFactory.instance.objectNode()
                .put("id", file.id())
                .put("object", "file")
                .put("bytes", file.bytes())
                .put("created_at", file.createdAt().getEpochSecond());
        if (file.expiresAt().isPresent()) node.put("expires_at", file.expiresAt().get().getEpochSecond());
        else node.putNull("expires_at");
        node.put("filename", file.filename())
                .put("purpose", file.purpose())
                .put("status", "processed")
                .putNull("status_details");
        return node;
    }
}
