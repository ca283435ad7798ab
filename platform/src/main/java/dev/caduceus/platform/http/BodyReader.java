package dev.caduceus.platform.http;

import dev.caduceus.spi.http.HttpStatusException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.server.Request;

/**
 * Reads a whole request body, blocking, and enforces the size limit while reading, so a chunked body
 * (no {@code Content-Length}) that overflows is a 413 too.
 */
final class BodyReader {
    private static final int CHUNK = 8192;

    private BodyReader() {}

    /**
     * The body's bytes.
     *
     * @throws HttpStatusException 413 {@code body_too_large} past {@code maxBytes}; 400 when Jetty
     *                             fails the read (a malformed chunked body, a client that left)
     */
    static byte[] read(Request request, long maxBytes) {
        var out = new ByteArrayOutputStream();
        try (var in = Request.asInputStream(request)) {
            var buffer = new byte[CHUNK];
            long total = 0;
            for (int n; (n = in.read(buffer)) != -1; ) {
                total += n;
                if (total > maxBytes) throw ApiErrors.bodyTooLarge().exception();
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            throw readFailure(e);
        }
        return out.toByteArray();
    }

    private static HttpStatusException readFailure(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof HttpException http && http.getCode() == 413) return ApiErrors.bodyTooLarge().exception();
        }
        return ApiErrors.invalidJson().exception();
    }
}
