package dev.caduceus.platform.host.http;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pipeline step 4: the bearer key. Only {@code Authorization: Bearer <key>} counts
 * (prefix case-sensitive, token trimmed); the token goes to the {@link HttpSettings.KeyCheck}, which
 * says which key it is (the admin key, or a named one: {@link Authenticated}). Public routes
 * ({@link Router.Match#publicRoute()}) skip the check. A rejection is 401 {@code gateway_auth_failed}
 * without {@code WWW-Authenticate}, logged with peer address, path and user agent, never the
 * presented token. Then the key's policy: a route of a family it may not use is 404 {@code not_found},
 * as if it did not exist; past its requests per minute, 429 {@code rate_limit_exceeded} with
 * {@code Retry-After}.
 */
final class AuthHandler extends Handler.Wrapper {
    /** The request attribute that holds the request's {@link Authenticated} ({@link InboundExchange#caller}). */
    static final String ATTRIBUTE = Authenticated.class.getName();
    private static final Logger LOG = LoggerFactory.getLogger(AuthHandler.class);
    private static final String PREFIX = "Bearer ";
    /** The host's own routes ({@code /health/detailed}): every key may use them. */
    static final String CORE_FAMILY = "core";
    private static final int MAX_LOGGED_AGENT = 200;

    private final HttpSettings.KeyCheck key;
    private final ErrorBodies errors;
    private final KeyRateLimiter limiter = new KeyRateLimiter(System::nanoTime);

    AuthHandler(HttpSettings.KeyCheck apiKey, ErrorBodies errors, Handler next) {
        super(next);
        this.key = apiKey;
        this.errors = errors;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        var match = RouteHandler.match(request);
        if (match != null && match.publicRoute()) return super.handle(request, response, callback);
        var who = authenticate(request.getHeaders().get(HttpHeader.AUTHORIZATION));
        if (who.isEmpty()) {
            LOG.warn("Rejected request without a valid API key: peer={} path={} user-agent={}",
                    Request.getRemoteAddr(request), printable(Request.getPathInContext(request)),
                    printable(request.getHeaders().get(HttpHeader.USER_AGENT)));
            errors.write(response, callback, ApiErrors.unauthorized());
            return true;
        }
        var caller = who.get().caller();
        if (match != null && !match.entry().family().equals(CORE_FAMILY) && !caller.mayUse(match.entry().family())) {
            // A family outside the key's policy does not exist for it.
            errors.write(response, callback, ApiErrors.notFound(request.getMethod(), Request.getPathInContext(request)));
            return true;
        }
        long wait = limiter.acquire(caller.name(), who.get().requestsPerMinute());
        if (wait > 0) {
            LOG.info("Key {} is over its {} requests per minute; retry in {} s", caller.name(),
                    who.get().requestsPerMinute(), wait);
            errors.write(response, callback, ApiErrors.keyRateLimited(caller.name(), who.get().requestsPerMinute(), wait));
            return true;
        }
        request.setAttribute(ATTRIBUTE, who.get());
        return super.handle(request, response, callback);
    }

    /** The key {@code authorization} presents ({@code Bearer } then the key), if it is one. */
    java.util.Optional<Authenticated> authenticate(String authorization) {
        if (authorization == null || !authorization.startsWith(PREFIX)) return java.util.Optional.empty();
        var token = authorization.substring(PREFIX.length()).trim();
        return token.isEmpty() ? java.util.Optional.empty() : key.authenticate(token);
    }

    /** Log-safe: control characters replaced, length capped. */
    private static String printable(String value) {
        if (value == null) return "-";
        var cut = value.length() > MAX_LOGGED_AGENT ? value.substring(0, MAX_LOGGED_AGENT) + "…" : value;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
