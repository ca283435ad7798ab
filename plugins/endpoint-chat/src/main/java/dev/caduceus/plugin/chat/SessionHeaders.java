package dev.caduceus.plugin.chat;

import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpExchange;
import java.util.regex.Pattern;

/**
 * The validated session headers of one request ({@code X-Hermes-Session-Id}, {@code X-Hermes-Session-Key}). Either value is null when the
 * header is absent or empty. Immutable.
 */
record SessionHeaders(String sessionId, String sessionKey) {
    static final String SESSION_ID = "X-Hermes-Session-Id";
    static final String SESSION_KEY = "X-Hermes-Session-Key";
    static final int MAX_LENGTH = 256;
    private static final Pattern ID_CHARS = Pattern.compile("[A-Za-z0-9_.:@+=-]+");

    /** Reads and checks both headers; a bad value is a 400. */
    static SessionHeaders from(HttpExchange exchange) {
        var id = exchange.header(SESSION_ID).filter(v -> !v.isEmpty()).orElse(null);
        var key = exchange.header(SESSION_KEY).filter(v -> !v.isEmpty()).orElse(null);
        if (id != null) {
            if (hasControl(id)) throw invalid("invalid_session_id", "Invalid session ID");
            if (id.length() > MAX_LENGTH) throw invalid("session_id_too_long", "Session ID too long");
            if (!ID_CHARS.matcher(id).matches() || id.contains(".."))
                throw invalid("invalid_session_id", "Invalid session ID");
        }
        if (key != null) {
            if (hasControl(key)) throw invalid("invalid_session_key", "Invalid session key");
            if (key.length() > MAX_LENGTH) throw invalid("session_key_too_long", "Session key too long");
        }
        return new SessionHeaders(id, key);
    }

    private static boolean hasControl(String value) {
        return value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0 || value.indexOf('\0') >= 0;
    }

    private static RuntimeException invalid(String code, String message) {
        return ApiError.badRequest(code, message, null).exception();
    }
}
