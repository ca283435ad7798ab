package dev.caduceus.platform.http;

import java.util.Set;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Pipeline step 3 (http-api §3): a POST, PUT or PATCH whose {@code Content-Length} exceeds the limit
 * gets 413 {@code body_too_large} before auth. Bodies without a length (chunked) are counted while
 * the exchange reads them ({@link BodyReader}). A non-numeric {@code Content-Length} never gets
 * here: Jetty's parser rejects it and {@link JsonErrorHandler} answers 400
 * {@code invalid_content_length}.
 */
final class BodyLimitHandler extends Handler.Wrapper {
    private static final Set<String> WITH_BODY = Set.of("POST", "PUT", "PATCH");

    private final long maxBodyBytes;
    private final ErrorBodies errors;

    BodyLimitHandler(long maxBodyBytes, ErrorBodies errors, Handler next) {
        super(next);
        this.maxBodyBytes = maxBodyBytes;
        this.errors = errors;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (WITH_BODY.contains(request.getMethod()) && request.getLength() > maxBodyBytes) {
            errors.write(response, callback, ApiErrors.bodyTooLarge());
            return true;
        }
        return super.handle(request, response, callback);
    }
}
