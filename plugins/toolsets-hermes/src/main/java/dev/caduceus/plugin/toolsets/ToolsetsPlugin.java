package dev.caduceus.plugin.toolsets;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.tool.DistributionSpec;
import dev.caduceus.spi.tool.ToolStatsSchema;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.List;

/**
 * Contributes the Hermes toolsets from the bundled {@code toolsets.json}. Tools named
 * there that no plugin provides are resolved away by the host; and the batch toolset
 * distributions from the same file, and Hermes' tool names as the {@code hermes}
 * tool-stats schema of the batch runner.
 */
public final class ToolsetsPlugin implements PlatformPlugin {

    @Override
    public List<ToolsetSpec> toolsets(PlatformContext ctx) {
        return ToolsetsFile.load(ctx.json()).toolsets();
    }

    @Override
    public List<DistributionSpec> distributions(PlatformContext ctx) {
        return ToolsetsFile.load(ctx.json()).distributions();
    }

    @Override
    public List<ToolStatsSchema> toolStatsSchemas(PlatformContext ctx) {
        return ToolsetsFile.load(ctx.json()).toolStatsSchemas();
    }
}
