package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.tool.ToolSource;
import java.util.Set;

/**
 * A plugin's {@link ToolSource} as other plugins see it through the deployment: each call runs with
 * the owning plugin's class loader (as every call into a plugin does) and a failing snapshot reads as
 * empty. Immutable; thread-safe.
 */
public record BoundToolSource(Contribution<ToolSource> source, String id, Set<String> offeredByDefault) implements ToolSource {

    /** Wraps {@code source}; its id and default toolsets are read once, now. */
    public static BoundToolSource of(Contribution<ToolSource> source) {
        try {
            var value = source.value();
            return new BoundToolSource(source, PluginCalls.with(source.classLoader(), value::id),
                    Set.copyOf(PluginCalls.with(source.classLoader(), value::offeredByDefault)));
        } catch (Exception e) {
            throw new PluginBootException("plugin '" + source.pluginId() + "' failed to describe its tool source: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public Snapshot snapshot() {
        try {
            var snapshot = PluginCalls.with(source.classLoader(), source.value()::snapshot);
            return snapshot == null ? Snapshot.empty() : snapshot;
        } catch (Exception | LinkageError e) {
            return Snapshot.empty();
        }
    }
}
