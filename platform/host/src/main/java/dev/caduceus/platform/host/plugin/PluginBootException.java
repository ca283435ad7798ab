package dev.caduceus.platform.host.plugin;

/**
 * Stops the boot: a plugin failed to load, start or contribute, or the selection or registries are
 * inconsistent. The message names the plugin id and jar file (or both plugins of a collision).
 */
public final class PluginBootException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PluginBootException(String message) {
        super(message);
    }

    public PluginBootException(String message, Throwable cause) {
        super(message, cause);
    }
}
