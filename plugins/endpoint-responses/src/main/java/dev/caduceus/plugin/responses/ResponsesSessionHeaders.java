package dev.caduceus.plugin.responses;

import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpExchange;

/**
 * The validated session headers of one request. Either value is null when the
 * header is absent or empty. Immutable. Copied from endpoint-chat with one change: Responses ignore
 * {@code X-Hermes-Session-Id}, so it is not validated; its value only enters the idempotency
 * fingerprint.
 */
record ResponsesSessionHeaders(String sessionId, String sessionKey) {
    static final String SESSION_ID = "X-Hermes-Session-Id";
    static final String SESSION_KEY = "X-Hermes-Session-Key";
    static final int MAX_LENGTH = 256;

    /** Reads both headers and checks the key; a bad key is a 400. */
    static ResponsesSessionHeaders from(HttpExchange exchange) {
        var id = exchange.header(SESSION_ID).filter(v -> !v.isEmpty()).orElse(null);
        var key = exchange.header(SESSION_KEY).filter(v -> !v.isEmpty()).orElse(null);
        if (key != null) {
            if (hasControl(key)) throw invalid("invalid_session_key", "Invalid session key");
            if (key.length() > MAX_LENGTH) throw invalid("session_key_too_long", "Session key too long");
        }
        return new ResponsesSessionHeaders(id, key);
    }

    private static boolean hasControl(String value) {
        return value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0 || value.indexOf('\0') >= 0;
    }

    private static RuntimeException invalid(String code, String message) {
        return ApiError.badRequest(code, message, null).exception();
    }
}
