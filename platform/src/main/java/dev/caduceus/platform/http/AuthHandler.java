package dev.caduceus.platform.http;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pipeline step 4 (http-api §4): the bearer key. Only {@code Authorization: Bearer <key>} counts
 * (prefix case-sensitive, token trimmed); the token goes to the {@link HttpSettings.KeyCheck}, which
 * compares it in constant time (against the key's salted hash when the key came from the key file). Public
 * routes ({@link Router.Match#publicRoute()}) skip the check. A rejection is 401
 * {@code gateway_auth_failed} without {@code WWW-Authenticate}, logged with peer address, path and
 * user agent, never the presented token.
 */
final class AuthHandler extends Handler.Wrapper {
    private static final Logger LOG = LoggerFactory.getLogger(AuthHandler.class);
    private static final String PREFIX = "Bearer ";
    private static final int MAX_LOGGED_AGENT = 200;

    private final HttpSettings.KeyCheck key;
    private final ErrorBodies errors;

    AuthHandler(HttpSettings.KeyCheck apiKey, ErrorBodies errors, Handler next) {
        super(next);
        this.key = apiKey;
        this.errors = errors;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        var match = RouteHandler.match(request);
        if ((match != null && match.publicRoute()) || authorized(request.getHeaders().get(HttpHeader.AUTHORIZATION)))
            return super.handle(request, response, callback);
        LOG.warn("Rejected request without a valid API key: peer={} path={} user-agent={}",
                Request.getRemoteAddr(request), printable(Request.getPathInContext(request)),
                printable(request.getHeaders().get(HttpHeader.USER_AGENT)));
        errors.write(response, callback, ApiErrors.unauthorized());
        return true;
    }

    /** Whether {@code authorization} is {@code Bearer } followed by the key. */
    boolean authorized(String authorization) {
        if (authorization == null || !authorization.startsWith(PREFIX)) return false;
        var token = authorization.substring(PREFIX.length()).trim();
        return !token.isEmpty() && key.matches(token);
    }

    /** Log-safe: control characters replaced, length capped. */
    private static String printable(String value) {
        if (value == null) return "-";
        var cut = value.length() > MAX_LOGGED_AGENT ? value.substring(0, MAX_LOGGED_AGENT) + "…" : value;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
