package dev.caduceus.platform.host.logging;

import static java.util.Objects.requireNonNull;

import ch.qos.logback.classic.Level;
import dev.caduceus.platform.host.config.LoggingConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@link LogSetup} applies: the root level, levels per logger or package, and the line format.
 * Read from the environment before the configuration is ({@link #fromEnvironment}), then from the
 * configuration ({@link #from}). Immutable.
 *
 * @param level  the level of every logger {@code levels} does not name
 * @param levels logger or package name to level (a package's level covers the loggers under it)
 * @param format the line format
 */
public record LogSettings(Level level, Map<String, Level> levels, Format format) {
    /** The variable for {@code logging.level}, read before the configuration too. */
    public static final String LEVEL_VARIABLE = "CADUCEUS_LOG_LEVEL";
    /** The generic names of {@code logging.level} and {@code logging.format} (see EnvNames). */
    static final String GENERIC_LEVEL_VARIABLE = "CADUCEUS__LOGGING__LEVEL";
    static final String FORMAT_VARIABLE = "CADUCEUS__LOGGING__FORMAT";
    static final List<String> LEVELS = List.of("trace", "debug", "info", "warn", "error", "off");

    /** How each event becomes text on stderr. */
    public enum Format {
        /** {@code HH:mm:ss.SSS LEVEL [thread] Logger - message [request_id=… run_id=…]} ({@link TextLayout}). */
        TEXT,
        /** One JSON object per line ({@link JsonLayout}). */
        JSON
    }

    public LogSettings {
        requireNonNull(level, "level");
        levels = Map.copyOf(levels);
        requireNonNull(format, "format");
    }

    /** Info, text, no levels of its own: what a process runs with when nothing says otherwise. */
    public static LogSettings defaults() {
        return new LogSettings(Level.INFO, Map.of(), Format.TEXT);
    }

    /**
     * From {@code CADUCEUS_LOG_LEVEL} (else {@code CADUCEUS__LOGGING__LEVEL}) and
     * {@code CADUCEUS__LOGGING__FORMAT}; unset or empty means info and text.
     *
     * @throws IllegalArgumentException for a value that is no level or format, naming the variable
     */
    public static LogSettings fromEnvironment(Map<String, String> env) {
        var variable = isSet(env.get(LEVEL_VARIABLE)) ? LEVEL_VARIABLE : GENERIC_LEVEL_VARIABLE;
        var level = isSet(env.get(variable))
                ? level(env.get(variable), "logging.level", "environment variable " + variable) : Level.INFO;
        var format = isSet(env.get(FORMAT_VARIABLE))
                ? format(env.get(FORMAT_VARIABLE), "environment variable " + FORMAT_VARIABLE) : Format.TEXT;
        return new LogSettings(level, Map.of(), format);
    }

    /** From the loaded configuration, whose values are already checked. */
    public static LogSettings from(LoggingConfig config) {
        var levels = new LinkedHashMap<String, Level>();
        config.levels().forEach((name, level) -> levels.put(name, level(level, "logging.levels." + name, "the config")));
        return new LogSettings(level(config.level(), "logging.level", "the config"), levels,
                format(config.format(), "the config"));
    }

    private static boolean isSet(String value) {
        return value != null && !value.isEmpty(); // as EnvNames: empty counts as unset
    }

    private static Level level(String text, String key, String source) {
        var name = text.strip().toLowerCase(Locale.ROOT);
        if (!LEVELS.contains(name)) throw invalid(key, source, text, String.join(", ", LEVELS));
        return Level.toLevel(name.toUpperCase(Locale.ROOT));
    }

    private static Format format(String text, String source) {
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "text" -> Format.TEXT;
            case "json" -> Format.JSON;
            default -> throw invalid("logging.format", source, text, "text, json");
        };
    }

    /** Worded as the configuration's own errors are. */
    private static IllegalArgumentException invalid(String key, String source, String value, String choices) {
        return new IllegalArgumentException("Invalid value for " + key + " in " + source + ": \"" + value
                + "\" is not one of " + choices);
    }
}
