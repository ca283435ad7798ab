package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.support.services.FileLibrary;
import java.util.Optional;

/**
 * The files a turn's agent delivered ({@code deliver_file}) on the response: one {@code file_path} annotation
 * ({@code {type, file_id, index}}, as OpenAI's output text carries a file the model made) per file, on the answer's
 * text, at its end. Looked up only when this server kept files for the run ({@code keptFor}). Stateless.
 */
final class DeliveredFiles {
    private DeliveredFiles() {}

    /** {@code body} with the annotations of the files run {@code runId} (of key {@code owner}) delivered. */
    static ObjectNode annotate(ObjectNode body, Optional<FileLibrary> library, String owner, String runId) {
        if (library.isEmpty() || !library.get().keptFor(runId)) return body;
        var files = library.get().delivered(owner, false, runId);
        if (files.isEmpty()) return body;
        ObjectNode text = null;
        for (var item : body.path("output"))
            if (item.path("type").asText().equals("message"))
                for (var part : item.path("content"))
                    if (part.path("type").asText().equals("output_text") && part instanceof ObjectNode o) text = o;
        if (text == null) return body;
        int index = text.path("text").asText().length();
        var annotations = text.has("annotations") && text.get("annotations").isArray()
                ? (com.fasterxml.jackson.databind.node.ArrayNode) text.get("annotations") : text.putArray("annotations");
        for (var file : files) annotations.addObject().put("type", "file_path").put("file_id", file.id()).put("index", index);
        return body;
    }
}
