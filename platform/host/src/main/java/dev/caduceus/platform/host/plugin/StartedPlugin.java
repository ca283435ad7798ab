package dev.caduceus.platform.host.plugin;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import java.nio.file.Path;
import java.util.List;

/**
 * A plugin whose {@code start} succeeded and whose contributions were collected.
 *
 * @param plugin   the plugin's entry point
 * @param context  the context it was started with
 * @param kinds    the non-empty contribution kinds, as in {@link PluginReport#kinds()}
 */
public record StartedPlugin(PluginDescriptorView descriptor, PlatformPlugin plugin, PlatformContext context,
                            List<String> kinds) {
    public StartedPlugin {
        requireNonNull(descriptor, "descriptor");
        requireNonNull(plugin, "plugin");
        requireNonNull(context, "context");
        kinds = List.copyOf(kinds);
    }

    public String id() { return descriptor.id(); }

    public String version() { return descriptor.version(); }

    public Path jar() { return descriptor.jar(); }

    public ClassLoader classLoader() { return descriptor.classLoader(); }
}
