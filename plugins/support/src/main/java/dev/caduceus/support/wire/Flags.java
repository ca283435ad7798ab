package dev.caduceus.support.wire;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/**
 * The flag rule for request fields and query parameters ({@code stream}, {@code store}, {@code all}, …): a JSON
 * boolean, or the words {@code 1/true/yes/on} and {@code 0/false/no/off} in any case; anything else means the
 * default. Stateless.
 */
public final class Flags {
    private Flags() {}

    /**
     * JSON booleans, or the strings (or numbers) {@code 1/true/yes/on} and {@code 0/false/no/off} in
     * any case; anything else, and an absent or null node, is {@code fallback}.
     */
    public static boolean parse(JsonNode node, boolean fallback) {
        if (node == null || node.isNull()) return fallback;
        if (node.isBoolean()) return node.asBoolean();
        if (!node.isTextual() && !node.isNumber()) return fallback;
        return switch (node.asText().trim().toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes", "on" -> true;
            case "0", "false", "no", "off" -> false;
            default -> fallback;
        };
    }
}
