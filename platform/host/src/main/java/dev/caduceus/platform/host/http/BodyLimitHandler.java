package dev.caduceus.platform.host.http;

import java.util.Locale;
import java.util.Set;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Pipeline step 3: the body's framing and size, before auth. A POST, PUT or PATCH whose
 * {@code Content-Length} exceeds the limit (the server's, or an upload route's own) gets 413 {@code body_too_large}. Bodies without a length
 * (chunked) are counted while the exchange reads them ({@link BodyReader}). A {@code Transfer-Encoding}
 * naming any coding besides {@code chunked} ({@code gzip, chunked}) gets 501
 * {@code unsupported_transfer_encoding}: Jetty would hand the handler the still-encoded bytes. A
 * malformed {@code Content-Length} or {@code Transfer-Encoding} never gets here: Jetty's parser
 * rejects it and {@link JsonErrorHandler} answers 400 ({@link MalformedRequests}).
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
        if (hasUnsupportedCoding(request.getHeaders())) {
            errors.write(response, callback, ApiErrors.unsupportedTransferEncoding());
            return true;
        }
        var match = RouteHandler.match(request);
        long limit = match == null ? maxBodyBytes : match.entry().bodyLimit(maxBodyBytes);
        if (WITH_BODY.contains(request.getMethod()) && request.getLength() > limit) {
            errors.write(response, callback, ApiErrors.bodyTooLarge());
            return true;
        }
        return super.handle(request, response, callback);
    }

    /** Whether {@code Transfer-Encoding} lists a coding other than {@code chunked}. */
    static boolean hasUnsupportedCoding(HttpFields headers) {
        for (var value : headers.getValuesList(HttpHeader.TRANSFER_ENCODING)) {
            for (var coding : value.split(",")) {
                var name = coding.trim().toLowerCase(Locale.ROOT);
                if (!name.isEmpty() && !name.equals("chunked")) return true;
            }
        }
        return false;
    }
}
