package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.http.HttpExchange;
import java.util.regex.Pattern;

/**
 * The session inputs of a run submission: the {@code X-Hermes-Session-Key} header
 * (validated, echoed) and the body's {@code session_id}, which takes the rules of the session id
 * header because it becomes the transcript scope and the tools' task id. {@code X-Hermes-Session-Id}
 * is ignored on runs and never read. Stateless.
 */
final class SessionRules {
    static final String SESSION_KEY = "X-Hermes-Session-Key";
    static final int MAX_LENGTH = 256;
    private static final Pattern ID_CHARS = Pattern.compile("[A-Za-z0-9_.:@+=-]+");

    private SessionRules() {}

    /** The session key, or null when the header is absent or empty; CR, LF, NUL or over 256 chars is a 400. */
    static String sessionKey(HttpExchange exchange) {
        var key = exchange.header(SESSION_KEY).filter(v -> !v.isEmpty()).orElse(null);
        if (key == null) return null;
        if (hasControl(key)) throw RunErrors.badRequest("invalid_session_key", "Invalid session key", null);
        if (key.length() > MAX_LENGTH) throw RunErrors.badRequest("session_key_too_long", "Session key too long", null);
        return key;
    }

    /** The body's {@code session_id}, or null when absent, null or empty; a bad value is a 400. */
    static String sessionId(JsonNode node) {
        if (node == null || node.isNull()) return null;
        if (!node.isTextual()) throw invalidSessionId();
        var id = node.asText();
        if (id.isEmpty()) return null;
        if (id.length() > MAX_LENGTH)
            throw RunErrors.badRequest("session_id_too_long", "Session ID too long", "session_id");
        if (!ID_CHARS.matcher(id).matches() || id.contains("..")) throw invalidSessionId();
        return id;
    }

    private static RuntimeException invalidSessionId() {
        return RunErrors.badRequest("invalid_session_id", "Invalid session ID", "session_id");
    }

    private static boolean hasControl(String value) {
        return value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0 || value.indexOf('\0') >= 0;
    }
}
