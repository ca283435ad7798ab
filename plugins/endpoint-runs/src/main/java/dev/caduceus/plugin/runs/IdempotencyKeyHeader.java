package dev.caduceus.plugin.runs;

import dev.caduceus.spi.http.HttpExchange;
import java.util.Optional;

/**
 * The durable {@code Idempotency-Key} of a run submission: 1–255 visible ASCII
 * characters (33–126), else 400 {@code invalid_idempotency_key}. A header sent empty is invalid, not
 * absent. Stateless.
 */
final class IdempotencyKeyHeader {
    static final String NAME = "Idempotency-Key";
    static final int MAX_LENGTH = 255;

    private IdempotencyKeyHeader() {}

    static Optional<String> read(HttpExchange exchange) {
        var key = exchange.header(NAME);
        if (key.isPresent() && !valid(key.get()))
            throw RunErrors.badRequest("invalid_idempotency_key",
                    "Idempotency-Key must be 1-255 visible ASCII characters", null);
        return key;
    }

    static boolean valid(String key) {
        if (key.isEmpty() || key.length() > MAX_LENGTH) return false;
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 33 || c > 126) return false;
        }
        return true;
    }
}
