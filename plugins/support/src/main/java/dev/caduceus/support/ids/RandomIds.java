package dev.caduceus.support.ids;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

/**
 * Unguessable ids: a prefix and random lowercase hex digits from a {@link SecureRandom}, made in one
 * array (a chat turn makes two: its run's and its completion's, where a {@code UUID}'s text with its
 * dashes replaced, or a hex string cut to length, took four or five objects each). Thread-safe.
 */
public final class RandomIds {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private RandomIds() {}

    /**
     * {@code prefix} (ASCII) followed by {@code digits} random hex digits, 4 random bits each.
     *
     * @throws IllegalArgumentException when {@code prefix} is not ASCII or {@code digits} is not positive
     */
    public static String hex(String prefix, int digits) {
        if (digits <= 0) throw new IllegalArgumentException("digits must be > 0");
        var random = new byte[(digits + 1) / 2];
        RANDOM.nextBytes(random);
        int p = prefix.length();
        var id = new byte[p + digits];
        for (int i = 0; i < p; i++) {
            char c = prefix.charAt(i);
            if (c > 0x7F) throw new IllegalArgumentException("prefix must be ASCII: " + prefix);
            id[i] = (byte) c;
        }
        for (int d = 0; d < digits; d++) {
            int b = random[d >> 1];
            id[p + d] = HEX[(d & 1) == 0 ? (b >> 4) & 0xF : b & 0xF];
        }
        return new String(id, StandardCharsets.ISO_8859_1);
    }
}
