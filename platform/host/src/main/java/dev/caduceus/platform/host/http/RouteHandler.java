package dev.caduceus.platform.host.http;

import java.util.Locale;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Pipeline step 1: route match. Unknown path: 404 {@code not_found}; known path, wrong
 * method: 405 {@code method_not_allowed} with {@code Allow}. {@code OPTIONS} on a known path is
 * passed on without a match, for the origin gate to answer as a preflight; {@code OPTIONS} on an
 * unknown path is a 404 like any other method. A match is stored on the request for later steps.
 */
final class RouteHandler extends Handler.Wrapper {
    private static final String MATCH_ATTRIBUTE = RouteHandler.class.getName() + ".match";

    private final Router router;
    private final ErrorBodies errors;

    RouteHandler(Router router, ErrorBodies errors, Handler next) {
        super(next);
        this.router = router;
        this.errors = errors;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        var method = request.getMethod().toUpperCase(Locale.ROOT);
        var path = Request.getPathInContext(request);
        switch (router.lookup(method, path)) {
            case Router.NotFound n -> errors.write(response, callback, ApiErrors.notFound(method, path));
            case Router.MethodNotAllowed m when "OPTIONS".equals(method) -> {
                return super.handle(request, response, callback);
            }
            case Router.MethodNotAllowed m ->
                    errors.write(response, callback, ApiErrors.methodNotAllowed(method, path, String.join(", ", m.allowed())));
            case Router.Match match -> {
                request.setAttribute(MATCH_ATTRIBUTE, match);
                return super.handle(request, response, callback);
            }
        }
        return true;
    }

    /** The match stored by {@link #handle}, or {@code null} (a preflight). */
    static Router.Match match(Request request) {
        return request.getAttribute(MATCH_ATTRIBUTE) instanceof Router.Match m ? m : null;
    }
}
