package dev.caduceus.platform.host.auth;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A salted hash of an API key, as the key file stores it: one line
 * {@code sha256:<salt-hex>:<hash-hex>}, where the salt is 16 random bytes and the hash is
 * SHA-256 over the salt followed by the key's UTF-8 bytes, both in lowercase hex. A plain salted
 * SHA-256 (no slow KDF) is enough because the keys hashed here are generated 256-bit random values,
 * which no dictionary holds; the salt keeps two installations' files from being compared.
 * Immutable and thread-safe.
 */
public final class KeyHash {
    /** The prefix that marks a key file's content as a hash rather than a clear-text key. */
    public static final String PREFIX = "sha256:";
    private static final int SALT_BYTES = 16;
    private static final HexFormat HEX = HexFormat.of();

    private final byte[] salt;
    private final byte[] hash;

    private KeyHash(byte[] salt, byte[] hash) {
        this.salt = salt;
        this.hash = hash;
    }

    /** The hash of {@code key} with a new random salt. */
    public static KeyHash of(String key, SecureRandom random) {
        var salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        return new KeyHash(salt, digest(salt, key));
    }

    /** Whether {@code text} (a key file's content) is in this format rather than a clear-text key. */
    public static boolean isHash(String text) {
        return text.startsWith(PREFIX);
    }

    /**
     * Parses {@link #format()}'s output.
     *
     * @throws IllegalArgumentException when {@code text} is not {@code sha256:<32 hex>:<64 hex>}
     */
    public static KeyHash parse(String text) {
        var parts = text.strip().split(":", -1);
        if (parts.length != 3 || !parts[0].equals("sha256") || parts[1].length() != 2 * SALT_BYTES
                || parts[2].length() != 64)
            throw new IllegalArgumentException("expected sha256:<32 hex digits>:<64 hex digits>");
        try {
            return new KeyHash(HEX.parseHex(parts[1]), HEX.parseHex(parts[2]));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expected sha256:<32 hex digits>:<64 hex digits>", e);
        }
    }

    /** The stored form, {@code sha256:<salt-hex>:<hash-hex>}. */
    public String format() {
        return PREFIX + HEX.formatHex(salt) + ":" + HEX.formatHex(hash);
    }

    /**
     * Whether {@code presented} is the hashed key. The presented value is hashed with the salt and the
     * two 32-byte digests are compared in constant time, so neither the time nor the length of the
     * presented value tells anything about the key.
     */
    public boolean matches(String presented) {
        return MessageDigest.isEqual(hash, digest(salt, presented));
    }

    private static byte[] digest(byte[] salt, String key) {
        try {
            var sha = MessageDigest.getInstance("SHA-256");
            sha.update(salt);
            return sha.digest(key.getBytes(UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "KeyHash[sha256, salted]";
    }
}
