package dev.caduceus.plugin.toolsets;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.List;

/**
 * Contributes the Hermes toolsets of tools.md §4 from the bundled {@code toolsets.json}. Tools named
 * there that no plugin provides are resolved away by the host. Distributions come later from the
 * same file.
 */
public final class ToolsetsPlugin implements PlatformPlugin {

    @Override
    public List<ToolsetSpec> toolsets(PlatformContext ctx) {
        return ToolsetsFile.load(ctx.json()).toolsets();
    }
}
