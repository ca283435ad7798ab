package dev.caduceus.plugin.toolsets;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.tool.ToolsetSpec;
import dev.caduceus.support.services.BatchCatalog.Distribution;
import dev.caduceus.support.services.BatchCatalog.ToolStatsSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The bundled {@code toolsets.json}, next to this class in the jar: {@code {"toolsets": [{name,
 * description, tools, includes}], "distributions": [{name, description, toolsetPercent}]}}: the
 * Hermes toolsets and batch distributions (key order of {@code toolsetPercent}
 * is the sampling order), and {@code "toolStatsSchemas": [{name, source, toolNames}]}: Hermes' full list
 * of tool names for {@code caduceus batch --tool_stats_schema hermes}, with the Hermes commit it was
 * read from. Immutable.
 */
record ToolsetsFile(List<ToolsetSpec> toolsets, List<Distribution> distributions,
                    List<ToolStatsSchema> toolStatsSchemas) {
    static final String RESOURCE = "toolsets.json";

    ToolsetsFile {
        toolsets = toolsets == null ? List.of() : List.copyOf(toolsets);
        distributions = distributions == null ? List.of() : List.copyOf(distributions);
        toolStatsSchemas = toolStatsSchemas == null ? List.of() : List.copyOf(toolStatsSchemas);
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
