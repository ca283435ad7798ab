package dev.caduceus.platform.host.http;

import java.util.Locale;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Answers every error Jetty produces itself (parser errors such as a bad {@code Content-Length},
 * a missing {@code Host} or an ambiguous path, unhandled requests, the {@code GracefulHandler}'s 503,
 * failures outside a handler) with the contract's JSON envelope, for every method and whatever the
 * {@code Accept} header says: never HTML, never a stack trace. A 400 gets the code of its fault
 * ({@link MalformedRequests}). Installed with {@code Server.setErrorHandler}. Also adds the default
 * headers ({@link DefaultHeadersHandler#apply}) that such responses would otherwise miss.
 */
final class JsonErrorHandler extends ErrorHandler {
    private final ErrorBodies errors;
    private final CorsPolicy cors;

    JsonErrorHandler(ErrorBodies errors, CorsPolicy cors) {
        this.errors = errors;
        this.cors = cors;
        setShowStacks(false);
        setShowCauses(false);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        int status = response.getStatus();
        var message = request.getAttribute(ERROR_MESSAGE) instanceof String m ? m : null;
        var cause = request.getAttribute(ERROR_EXCEPTION) instanceof Throwable t ? t : null;
        if (cause instanceof HttpException http) status = http.getCode();
        if (status < 400 || status > 599) status = HttpStatus.INTERNAL_SERVER_ERROR_500;

        var error = ApiErrors.forStatus(status, method(request), path(request), reason(message, cause));
        DefaultHeadersHandler.apply(request, response, cors);
        response.getHeaders().put(ERROR_CACHE_CONTROL);
        if (HttpStatus.hasNoBody(status) || "HEAD".equalsIgnoreCase(request.getMethod())) {
            errors.prepare(response, error);
            response.write(true, null, callback);
        } else {
            errors.write(response, callback, error);
        }
        return true;
    }

    private static String method(Request request) {
        var method = request.getMethod();
        return method == null ? "GET" : method.toUpperCase(Locale.ROOT);
    }

    private static String path(Request request) {
        try {
            var path = Request.getPathInContext(request);
            return path == null ? "/" : path;
        } catch (RuntimeException e) {
            return "/";
        }
    }

    /** Every text Jetty gave about the error, only to be inspected (never echoed). */
    private static String reason(String message, Throwable cause) {
        var sb = new StringBuilder(message == null ? "" : message);
        for (Throwable t = cause; t != null; t = t.getCause()) sb.append(' ').append(t.getMessage());
        return sb.toString();
    }
}
