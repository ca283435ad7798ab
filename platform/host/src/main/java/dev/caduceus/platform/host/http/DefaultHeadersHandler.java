package dev.caduceus.platform.host.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.MDC;

/**
 * Pipeline step 0: headers every response carries, set before anything can answer: the security
 * headers (nosniff, no-referrer, CSP, frame denial, HSTS), {@code X-Request-Id} (the client's when well-formed,
 * else a new one; in the MDC as {@code request_id} while the request is handled), and the CORS headers when the request's
 * origin is allowed. Later steps and handlers may replace any of them (a handler-set value wins).
 */
final class DefaultHeadersHandler extends Handler.Wrapper {
    static final String REQUEST_ID_HEADER = "X-Request-Id";
    /** A client's request id is taken when it is 1 to 128 of these characters (no spaces, quotes or controls). */
    private static final java.util.regex.Pattern CLIENT_ID = java.util.regex.Pattern.compile("[A-Za-z0-9._:@+=/-]{1,128}");
    static final Map<String, String> SECURITY_HEADERS = securityHeaders();
    /**
     * The same, as fields encoded once: each response used to make seven fields from their names and values (a
     * header-name lookup each) and encode them as it wrote them.
     */
    private static final java.util.List<org.eclipse.jetty.http.HttpField> SECURITY_FIELDS = SECURITY_HEADERS.entrySet()
            .stream().<org.eclipse.jetty.http.HttpField>map(e -> new org.eclipse.jetty.http.PreEncodedHttpField(
                    e.getKey(), e.getValue())).toList();

    private static final String REQUEST_ID_ATTRIBUTE = DefaultHeadersHandler.class.getName() + ".requestId";

    private final CorsPolicy cors;

    DefaultHeadersHandler(CorsPolicy cors, Handler next) {
        super(next);
        this.cors = cors;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        var id = requestIdOf(request);
        request.setAttribute(REQUEST_ID_ATTRIBUTE, id);
        apply(request, response, cors);
        MDC.put(dev.caduceus.platform.host.logging.MdcKeys.REQUEST_ID, id);
        try {
            return super.handle(request, response, callback);
        } finally {
            MDC.remove(dev.caduceus.platform.host.logging.MdcKeys.REQUEST_ID);
            MDC.remove(dev.caduceus.platform.host.logging.MdcKeys.RUN_ID);
        }
    }

    /**
     * The client's {@code X-Request-Id} when well-formed (so its logs and ours can be joined), else a
     * new random UUID. The id needs to be unique, not secret: {@link ThreadLocalRandom} spares the
     * {@code SecureRandom} of {@link UUID#randomUUID()} on every request.
     */
    private static String requestIdOf(Request request) {
        var given = request.getHeaders().get(REQUEST_ID_HEADER);
        if (given != null && CLIENT_ID.matcher(given).matches()) return given;
        var random = ThreadLocalRandom.current();
        long hi = (random.nextLong() & ~0xF000L) | 0x4000L;                       // version 4
        long lo = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // IETF variant
        return new UUID(hi, lo).toString();
    }

    /** The request id {@link #handle} assigned, or {@code null} when the request never got here. */
    static String requestId(Request request) {
        return request.getAttribute(REQUEST_ID_ATTRIBUTE) instanceof String id ? id : null;
    }

    /** Adds every default header that is still missing (also used for errors Jetty produces itself). */
    static void apply(Request request, Response response, CorsPolicy cors) {
        HttpFields.Mutable headers = response.getHeaders();
        for (var field : SECURITY_FIELDS) if (!headers.contains(field.getName())) headers.put(field);
        var id = requestId(request);
        if (id != null && !headers.contains(REQUEST_ID_HEADER)) headers.put(REQUEST_ID_HEADER, id);
        cors.decorate(CorsPolicy.originOf(request.getHeaders()), headers);
    }

    private static Map<String, String> securityHeaders() {
        var map = new LinkedHashMap<String, String>();
        map.put("X-Content-Type-Options", "nosniff");
        map.put("Referrer-Policy", "no-referrer");
        map.put("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
        map.put("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
        map.put("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
        map.put("X-Frame-Options", "DENY");
        map.put("X-XSS-Protection", "0");
        return java.util.Collections.unmodifiableMap(map);
    }
}
