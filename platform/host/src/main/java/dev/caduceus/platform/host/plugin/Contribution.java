package dev.caduceus.platform.host.plugin;

import static java.util.Objects.requireNonNull;

/**
 * One contributed object tagged with its owner, so callers can name the plugin in errors and set
 * the right context class loader ({@link PluginCalls}) when calling it.
 */
public record Contribution<T>(T value, String pluginId, ClassLoader classLoader) {
    public Contribution {
        requireNonNull(value, "value");
        requireNonNull(pluginId, "pluginId");
        requireNonNull(classLoader, "classLoader");
    }
}
