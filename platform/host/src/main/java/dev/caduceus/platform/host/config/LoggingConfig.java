package dev.caduceus.platform.host.config;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/**
 * The {@code logging} section as read: what {@code dev.caduceus.platform.host.logging.LogSetup} applies as
 * soon as the configuration is loaded, before anything else logs. Immutable.
 *
 * @param level  {@code logging.level} (the environment's {@code CADUCEUS_LOG_LEVEL} over the file): trace,
 *               debug, info, warn, error or off
 * @param levels {@code logging.levels}: logger or package name to level
 * @param format {@code logging.format}: {@code text} or {@code json}
 */
public record LoggingConfig(String level, Map<String, String> levels, String format) {
    public LoggingConfig {
        requireNonNull(level, "level");
        levels = Map.copyOf(levels);
        requireNonNull(format, "format");
    }

    /** From the validated values of {@link ConfigLoader}. */
    @SuppressWarnings("unchecked")
    static LoggingConfig from(Map<String, Object> values) {
        var levels = (Map<String, String>) values.get("logging.levels");
        return new LoggingConfig((String) values.get("logging.level"), levels == null ? Map.of() : levels,
                (String) values.get("logging.format"));
    }
}
