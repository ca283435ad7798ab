package dev.caduceus.spi;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * Identity of one loaded plugin, as read from its jar manifest.
 *
 * <p>Immutable; safe to share between threads.
 *
 * @param id       the {@code Plugin-Id} (for example {@code endpoint-chat})
 * @param version  the {@code Plugin-Version} (semver)
 * @param jar      the jar file the plugin was loaded from
 * @param dataDir  a private directory for the plugin's files ({@code $CADUCEUS_HOME/plugin-data/<id>});
 *                 created on first use by the plugin
 */
public record PluginInfo(String id, String version, Path jar, Path dataDir) {
    public PluginInfo {
        requireNonNull(id, "id");
        requireNonNull(version, "version");
        requireNonNull(jar, "jar");
        requireNonNull(dataDir, "dataDir");
    }
}
