package dev.caduceus.platform.config;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The result of {@link ConfigLoader#load}: the typed configuration and the warnings to log at boot
 * (unknown keys, each naming the key and its source).
 */
public record LoadedConfig(PlatformConfig config, List<String> warnings) {
    public LoadedConfig {
        requireNonNull(config, "config");
        warnings = List.copyOf(warnings);
    }
}
