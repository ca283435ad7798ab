package dev.caduceus.support.wire;

import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpStatusException;

/**
 * Query parameters the list routes share: {@code limit} (a bad value is a 400 {@code invalid_limit})
 * and optional text values. Stateless.
 */
public final class QueryValues {
    private QueryValues() {}

    /**
     * {@code limit}: absent is {@code defaultLimit}; otherwise a whole number, 1 … {@code max}.
     *
     * @throws HttpStatusException 400 {@code invalid_limit} for anything else
     */
    public static int limit(HttpExchange exchange, int defaultLimit, int max) {
        var raw = exchange.query("limit");
        if (raw.isEmpty()) return defaultLimit;
        var value = raw.get().trim();
        if (value.matches("[0-9]{1,9}")) {
            int limit = Integer.parseInt(value);
            if (limit >= 1 && limit <= max) return limit;
        }
        throw ApiError.badRequest("invalid_limit", "Invalid limit: " + raw.get() + " (use 1-" + max + ")", "limit")
                .exception();
    }

    /**
     * {@code order}: {@code desc} (also when absent) or {@code asc}, in any case; true for descending.
     *
     * @throws HttpStatusException 400 {@code invalid_order} for anything else
     */
    public static boolean descending(HttpExchange exchange) {
        var raw = exchange.query("order");
        if (raw.isEmpty()) return true;
        return switch (raw.get().trim().toLowerCase(java.util.Locale.ROOT)) {
            case "desc" -> true;
            case "asc" -> false;
            default -> throw ApiError.badRequest("invalid_order", "Invalid order: " + raw.get() + " (use asc or desc)",
                    "order").exception();
        };
    }

    /** A query value, or null when absent or empty. */
    public static String text(HttpExchange exchange, String name) {
        return exchange.query(name).filter(v -> !v.isEmpty()).orElse(null);
    }
}
