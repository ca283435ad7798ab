package dev.caduceus.plugin.toolsets;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.tool.ToolsetSpec;
import dev.caduceus.support.services.BatchCatalog;
import java.util.List;

/**
 * Contributes the Hermes toolsets from the bundled {@code toolsets.json}. Tools named
 * there that no plugin provides are resolved away by the host. It also offers the batch toolset
 * distributions from the same file, and Hermes' tool names as the {@code hermes} tool-stats schema,
 * as a {@link BatchCatalog} service that the batch runner and {@code GET /v1/capabilities} find by type.
 */
public final class ToolsetsPlugin implements PlatformPlugin {

    @Override
    public List<ToolsetSpec> toolsets(PlatformContext ctx) {
        return ToolsetsFile.load(ctx.json()).toolsets();
    }

    @Override
    public List<Object> services(PlatformContext ctx) {
        var file = ToolsetsFile.load(ctx.json());
        return List.of(new HermesBatchCatalog(file.distributions(), file.toolStatsSchemas()));
    }

    /** The file's distributions and schemas, fixed at boot. Immutable. */
    record HermesBatchCatalog(List<BatchCatalog.Distribution> distributions,
                              List<BatchCatalog.ToolStatsSchema> toolStatsSchemas) implements BatchCatalog {
        HermesBatchCatalog {
            distributions = List.copyOf(distributions);
            toolStatsSchemas = List.copyOf(toolStatsSchemas);
        }
    }
}
