package dev.caduceus.platform.host.auth;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.security.MessageDigest;

/**
 * The bearer key in force and where it came from. A configured key is known in clear (it is in the
 * configuration anyway); a key from the key file is known only by its {@link KeyHash}; a key generated
 * at this start carries its clear value once, to be printed, and {@link #retained()} drops it.
 * No {@code toString()} shows a key. Immutable.
 */
public sealed interface ApiKey {
    /** What to call the source in messages ({@code API_SERVER_KEY}, {@code server.api_key in FILE}, a file path). */
    String sourceName();

    /** Whether {@code presented} (a bearer token) is this key; constant-time in the key. */
    boolean matches(String presented);

    /** The key in clear where this start knows it (configured, or generated now), for the redactor. */
    default java.util.Optional<String> clearValue() {
        return java.util.Optional.empty();
    }

    /** What the server keeps for checking requests: this key without any clear value it need not hold. */
    default ApiKey retained() {
        return this;
    }

    /** From {@code API_SERVER_KEY} or {@code server.api_key}. */
    record Configured(String value, String sourceName) implements ApiKey {
        public Configured {
            requireNonNull(value, "value");
            requireNonNull(sourceName, "sourceName");
        }

        @Override
        public boolean matches(String presented) {
            return MessageDigest.isEqual(value.getBytes(UTF_8), presented.getBytes(UTF_8));
        }

        @Override
        public java.util.Optional<String> clearValue() {
            return java.util.Optional.of(value);
        }

        @Override
        public String toString() {
            return "ApiKey.Configured[from " + sourceName + ", <redacted>]";
        }
    }

    /** The hash in the key file ({@code $CADUCEUS_HOME/api_key}); the clear key is not known here. */
    record Stored(KeyHash hash, Path file) implements ApiKey {
        public Stored {
            requireNonNull(hash, "hash");
            requireNonNull(file, "file");
        }

        @Override
        public String sourceName() {
            return file.toString();
        }

        @Override
        public boolean matches(String presented) {
            return hash.matches(presented);
        }
    }

    /**
     * A key generated just now: {@code value} is the clear key, to be shown once (the start-up
     * banner, {@code caduceus key rotate}); the key file holds only {@code stored}'s hash.
     */
    record Generated(String value, Stored stored) implements ApiKey {
        public Generated {
            requireNonNull(value, "value");
            requireNonNull(stored, "stored");
        }

        @Override
        public String sourceName() {
            return stored.sourceName();
        }

        @Override
        public java.util.Optional<String> clearValue() {
            return java.util.Optional.of(value);
        }

        /** The key file. */
        public Path file() {
            return stored.file();
        }

        @Override
        public boolean matches(String presented) {
            return stored.matches(presented);
        }

        @Override
        public ApiKey retained() {
            return stored;
        }

        @Override
        public String toString() {
            return "ApiKey.Generated[saved to " + stored.file() + ", <redacted>]";
        }
    }
}
