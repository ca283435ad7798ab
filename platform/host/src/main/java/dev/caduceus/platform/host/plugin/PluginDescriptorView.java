package dev.caduceus.platform.host.plugin;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * One loaded plugin as the rest of the platform sees it: what the context factory and the
 * before-start hook (migrations) get. Immutable.
 *
 * @param id          the {@code Plugin-Id}
 * @param version     the {@code Plugin-Version}
 * @param jar         the absolute path of the plugin jar (migrations are listed from it)
 * @param classLoader the plugin's own class loader
 */
public record PluginDescriptorView(String id, String version, Path jar, ClassLoader classLoader) {
    public PluginDescriptorView {
        requireNonNull(id, "id");
        requireNonNull(version, "version");
        requireNonNull(jar, "jar");
        requireNonNull(classLoader, "classLoader");
    }

    /** {@code id (file.jar)}, for messages. */
    public String label() {
        return "'" + id + "' (" + jar.getFileName() + ")";
    }
}
