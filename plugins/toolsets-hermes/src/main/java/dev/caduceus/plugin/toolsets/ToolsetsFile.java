package dev.caduceus.plugin.toolsets;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The bundled {@code toolsets.json}, next to this class in the jar: {@code {"toolsets": [{name,
 * description, tools, includes}]}}. Distributions (batch.md §2.3) will be a {@code distributions}
 * section of the same file, added as a field here. Immutable.
 */
record ToolsetsFile(List<ToolsetSpec> toolsets) {
    static final String RESOURCE = "toolsets.json";

    ToolsetsFile {
        toolsets = toolsets == null ? List.of() : List.copyOf(toolsets);
    }

    /** Reads the resource with this plugin's class loader; a missing or malformed file is a packaging bug. */
    static ToolsetsFile load(ObjectMapper json) {
        try (var in = ToolsetsFile.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException(RESOURCE + " is missing from the toolsets-hermes jar");
            return json.readValue(in, ToolsetsFile.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }
}
