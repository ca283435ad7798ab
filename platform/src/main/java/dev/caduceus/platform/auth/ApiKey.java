package dev.caduceus.platform.auth;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * The bearer key in force and where it came from. {@link #toString()} never shows the key.
 *
 * @param origin     how the key was found
 * @param sourceName what to call the source in messages ({@code API_SERVER_KEY}, a file path)
 * @param file       the key file when the origin is {@code FILE} or {@code GENERATED}, else null
 */
public record ApiKey(String value, Origin origin, String sourceName, Path file) {
    public enum Origin { CONFIGURED, FILE, GENERATED }

    public ApiKey {
        requireNonNull(value, "value");
        requireNonNull(origin, "origin");
        requireNonNull(sourceName, "sourceName");
    }

    @Override
    public String toString() {
        return "ApiKey[" + origin + " from " + sourceName + ", <redacted>]";
    }
}
