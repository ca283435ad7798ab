package dev.caduceus.platform.host.boot;

/**
 * The platform could not start. The message is meant for a person: it names the key and file, or
 * the plugin and jar, and what to do. {@link #exitCode()} is 2 for configuration, key and port
 * problems, 1 for plugin failures.
 */
public final class BootException extends Exception {
    private final int exitCode;

    public BootException(String message, int exitCode, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
