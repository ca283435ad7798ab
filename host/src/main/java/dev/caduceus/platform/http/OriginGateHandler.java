package dev.caduceus.platform.http;

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
        if (!cors.allows(origin) || (preflight && origin == null)) {
            answerEmpty(response, callback, 403);
        } else if (preflight) {
            answerEmpty(response, callback, 200);
        } else {
            return super.handle(request, response, callback);
        }
        return true;
    }

    private static void answerEmpty(Response response, Callback callback, int status) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 0L);
        response.write(true, null, callback);
    }
}
