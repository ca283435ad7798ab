package dev.caduceus.platform.host.http;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Pipeline step 2: the origin gate. An {@code Origin} that is present and not
 * allowed gets 403 with an empty body, whatever the method and before auth. {@code OPTIONS} is
 * answered here and never reaches auth or a handler: 200 empty with an allowed {@code Origin}
 * (the CORS headers are already set by {@link DefaultHeadersHandler}), 403 otherwise.
 *
 * <p>A same-origin request is always let through: its {@code Origin} names this server as the
 * request reached it ({@code scheme://} then exactly the {@code Host} header), which a browser sends
 * on a {@code POST} from a page this server served itself (the console). Only a page of that origin
 * can make a browser send it, and such a page has no more power than any client: every route it
 * calls still needs the bearer key, which is never a cookie. The scheme is not compared, so a
 * TLS-terminating proxy that keeps the {@code Host} header changes nothing.
 */
final class OriginGateHandler extends Handler.Wrapper {
    private final CorsPolicy cors;

    OriginGateHandler(CorsPolicy cors, Handler next) {
        super(next);
        this.cors = cors;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        var origin = CorsPolicy.originOf(request.getHeaders());
        boolean preflight = "OPTIONS".equalsIgnoreCase(request.getMethod());
        boolean allowed = cors.allows(origin) || (!preflight && sameOrigin(origin, request));
        if (!allowed || (preflight && origin == null)) {
            answerEmpty(response, callback, 403);
        } else if (preflight) {
            answerEmpty(response, callback, 200);
        } else {
            return super.handle(request, response, callback);
        }
        return true;
    }

    /** Whether {@code origin} ({@code scheme://host[:port]}) names the authority in the request's {@code Host} header. */
    static boolean sameOrigin(String origin, Request request) {
        if (origin == null) return false;
        int authority = origin.indexOf("://");
        var host = request.getHeaders().get(HttpHeader.HOST);
        return authority > 0 && host != null && !host.isEmpty()
                && origin.substring(authority + 3).equalsIgnoreCase(host.strip());
    }

    private static void answerEmpty(Response response, Callback callback, int status) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 0L);
        response.write(true, null, callback);
    }
}
