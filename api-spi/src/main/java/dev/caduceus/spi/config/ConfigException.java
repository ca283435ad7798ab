package dev.caduceus.spi.config;

/**
 * A configuration value is missing or malformed. The message names the full key and its source
 * (file path, environment variable or flag); secrets are never included.
 *
 * <p>Immutable once thrown; safe to pass between threads.
 */
public final class ConfigException extends RuntimeException {
    private final String key;

    public ConfigException(String key, String message) {
        super(message);
        this.key = key;
    }

    /** The full dotted key ({@code plugins.tool-terminal.timeout}). */
    public String key() {
        return key;
    }
}
