package dev.caduceus.platform.http;

import dev.caduceus.spi.http.HttpStatusException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Blocker;

/**
 * Reads a whole request body, blocking, and enforces the size limit while reading, so a chunked body
 * (no {@code Content-Length}) that overflows is a 413 too.
 *
 * <p>It reads the request's chunks itself rather than through an {@code InputStream}: closing
 * Jetty's stream before the end of the body fails the request ("closed before EOF"), and that failure
 * raced the 413 and often won as a 500. Left unread, the rest of an oversized body is Jetty's to
 * discard once the answer is written: it drains what it can and closes the connection.
 */
final class BodyReader {
    private BodyReader() {}

    /**
     * The body's bytes.
     *
     * @throws HttpStatusException 413 {@code body_too_large} past {@code maxBytes}; 400
     *                             {@code invalid_body} when the body's framing is broken (a malformed
     *                             chunk) or the client stopped sending; 408 {@code request_timeout}
     *                             when the body stopped arriving for the idle timeout
     */
    static byte[] read(Request request, long maxBytes) {
        var out = new ByteArrayOutputStream();
        long total = 0;
        while (true) {
            var chunk = request.read();
            if (chunk == null) {
                awaitContent(request);
                continue;
            }
            if (Content.Chunk.isFailure(chunk)) throw readFailure(chunk.getFailure());
            try {
                var buffer = chunk.getByteBuffer();
                total += buffer.remaining();
                if (total > maxBytes) throw ApiErrors.bodyTooLarge().exception();
                if (buffer.hasArray()) {
                    out.write(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
                } else {
                    var copy = new byte[buffer.remaining()];
                    buffer.slice().get(copy);
                    out.write(copy, 0, copy.length);
                }
            } finally {
                chunk.release();
            }
            if (chunk.isLast()) return out.toByteArray();
        }
    }

    private static void awaitContent(Request request) {
        try (Blocker.Runnable demand = Blocker.runnable()) {
            request.demand(demand);
            demand.block();
        } catch (IOException e) {
            throw readFailure(e);
        }
    }

    private static HttpStatusException readFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof HttpException http && http.getCode() == 413) return ApiErrors.bodyTooLarge().exception();
            if (t instanceof TimeoutException) return ApiErrors.requestTimeout().exception();
        }
        return ApiErrors.invalidBody().exception();
    }
}
