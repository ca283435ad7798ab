package dev.caduceus.platform.host.config;

import static java.util.Objects.requireNonNull;

/**
 * A credential from the configuration. {@link #toString()} never shows it, so records holding a
 * secret can be logged; call {@link #reveal()} only where the value is actually used.
 */
public record Secret(String value) {
    public Secret {
        requireNonNull(value, "value");
    }

    /** The secret itself. */
    public String reveal() {
        return value;
    }

    @Override
    public String toString() {
        return "<redacted>";
    }
}
