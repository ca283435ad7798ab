package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/** The contract's flag rule (http-api §2.1). Stateless. */
final class Flags {
    private Flags() {}

    /** JSON booleans, or {@code 1/true/yes/on} and {@code 0/false/no/off} in any case; anything else is {@code fallback}. */
    static boolean parse(JsonNode node, boolean fallback) {
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
