package dev.caduceus.platform.host.http;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;

/**
 * The origin allowlist and the headers an allowed origin gets (docs/api.md#cors-and-security-headers). Immutable.
 * {@code "*"} in the list is the explicit wildcard: any origin is allowed and answered with
 * {@code Access-Control-Allow-Origin: *} and no {@code Vary}. Credentials are never allowed.
 *
 * <p>Only the configured entries are normalized (trimmed, a trailing {@code /} dropped, lower-cased,
 * since an origin's scheme and host are): a browser sends an origin in exactly that serialized form
 * (RFC 6454 §6.2), so a request's {@code Origin} must equal an entry as sent. Normalizing it as well
 * let {@code http://allowed.example/}, which no browser sends, pass for {@code http://allowed.example}.
 */
final class CorsPolicy {
    static final String ALLOW_METHODS = "GET, POST, PATCH, DELETE, OPTIONS";
    static final String ALLOW_HEADERS = "Authorization, Content-Type, Idempotency-Key, X-Hermes-Session-Id, "
            + "X-Hermes-Session-Key, X-Hermes-Tool-Progress, Last-Event-ID";
    static final String EXPOSE_HEADERS = "X-Hermes-Session-Id, X-Hermes-Session-Key, X-Hermes-Completed, "
            + "X-Hermes-Partial, X-Hermes-Error, Idempotency-Replayed, Retry-After, x-should-retry";
    static final String MAX_AGE = "600";

    private final Set<String> origins;
    private final boolean wildcard;

    CorsPolicy(List<String> configured) {
        this.origins = configured.stream().map(CorsPolicy::normalizeEntry).filter(o -> !o.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
        this.wildcard = origins.contains("*");
    }

    /**
     * The request's {@code Origin}: null when absent, and an empty string (allowed only by the
     * wildcard) when sent more than once, which no browser does; the gate and the CORS headers both
     * read it here, so they never judge different copies.
     */
    static String originOf(HttpFields headers) {
        var values = headers.getValuesList(HttpHeader.ORIGIN);
        if (values.isEmpty()) return null;
        return values.size() == 1 ? values.getFirst() : "";
    }

    /** Whether a request carrying {@code Origin: origin} may proceed; {@code null} (no header) is allowed. */
    boolean allows(String origin) {
        return origin == null || wildcard || origins.contains(origin);
    }

    /** Adds the CORS response headers (allowed origin, methods, request and exposed headers, max age) for an allowed, present {@code origin}; does nothing otherwise. */
    void decorate(String origin, HttpFields.Mutable headers) {
        if (origin == null || !allows(origin) || headers.contains(HttpHeader.ACCESS_CONTROL_ALLOW_ORIGIN)) return;
        if (wildcard) {
            headers.put(HttpHeader.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
        } else {
            headers.put(HttpHeader.ACCESS_CONTROL_ALLOW_ORIGIN, origin);
            headers.add(HttpHeader.VARY, "Origin");
        }
        headers.put(HttpHeader.ACCESS_CONTROL_ALLOW_METHODS, ALLOW_METHODS);
        headers.put(HttpHeader.ACCESS_CONTROL_ALLOW_HEADERS, ALLOW_HEADERS);
        headers.put(HttpHeader.ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSE_HEADERS);
        headers.put(HttpHeader.ACCESS_CONTROL_MAX_AGE, MAX_AGE);
    }

    private static String normalizeEntry(String entry) {
        var trimmed = entry.trim().toLowerCase(Locale.ROOT);
        return trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
    }
}
