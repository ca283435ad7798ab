package dev.caduceus.platform.host.config;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The result of {@link ConfigLoader#load}: the typed configuration, the logging settings to apply
 * before anything else is logged, and the warnings to log at boot (unknown keys, each naming the key
 * and its source).
 */
public record LoadedConfig(PlatformConfig config, LoggingConfig logging, List<String> warnings) {
    public LoadedConfig {
        requireNonNull(config, "config");
        requireNonNull(logging, "logging");
        warnings = List.copyOf(warnings);
    }
}
