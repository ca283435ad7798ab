package dev.caduceus.plugin.memory;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.config.PluginConfig.Setting;
import dev.caduceus.spi.tool.Tool;
import java.util.List;

/**
 * Contributes the {@code memory} tool, backed by this plugin's {@code memory_entries}
 * table. Limits come from {@code tools.memory.memory_char_limit} (2200) and
 * {@code tools.memory.user_char_limit} (1375).
 */
public final class MemoryPlugin implements PlatformPlugin {

    /** What {@link MemoryLimits} reads. */
    @Override
    public List<Setting> settings() {
        return MemoryKeys.ALL;
    }

    @Override
    public List<Tool> tools(PlatformContext ctx) {
        var limits = MemoryLimits.from(ctx.section("tools"));
        var store = new MemoryStore(ctx.database(), ctx.clock());
        return List.of(new MemoryTool(store, limits, ctx.json()));
    }
}
