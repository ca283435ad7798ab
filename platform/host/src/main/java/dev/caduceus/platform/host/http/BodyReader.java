package dev.caduceus.platform.host.http;

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
     * @param share what this exchange holds of the {@link BodyBudget}: the body waits for room first
     *              (or, without a length, takes it as it arrives)
     * @param pace  the pace the body must keep once room was found ({@link BodyPace})
     * @throws HttpStatusException 413 {@code body_too_large} past {@code maxBytes}; 503
     *                             {@code server_busy} when the budget has no room in time; 400
     *                             {@code invalid_body} when the body's framing is broken (a malformed
     *                             chunk) or the client stopped sending; 408 {@code request_timeout}
     *                             when the body stopped arriving for the idle timeout or fell behind
     *                             its pace
     */
    static byte[] read(Request request, long maxBytes, BodyBudget.Share share, BodyPace pace) {
        // With a Content-Length (what clients send) the bytes go straight into one array of that size:
        // a growing buffer and its final copy held up to 2.6 times the body at once (a near-limit
        // body is 10 MB, and 10 may be read at a time under a 128 MiB heap)
        long length = request.getLength();
        if (length > maxBytes) throw ApiErrors.bodyTooLarge().exception();
        if (length > 0) share.awaitRoomFor(length);
        var sized = length > 0 ? new byte[(int) length] : null;
        var grown = sized == null ? new ByteArrayOutputStream() : null;
        long total = 0;
        var clock = pace.off() ? null : pace.start(System.nanoTime());
        while (true) {
            var chunk = request.read();
            if (chunk == null) {
                if (clock == null) awaitContent(request);
                else awaitContent(request, clock);
                continue;
            }
            if (clock != null) clock.arrived(chunk.remaining(), System.nanoTime());
            if (Content.Chunk.isFailure(chunk)) throw readFailure(chunk.getFailure());
            try {
                var buffer = chunk.getByteBuffer();
                int n = buffer.remaining();
                if (total + n > maxBytes) throw ApiErrors.bodyTooLarge().exception();
                if (sized == null) share.growTo(total + n);
                if (sized != null) {
                    if (total + n > sized.length) throw ApiErrors.invalidBody().exception(); // Jetty enforces the length
                    buffer.slice().get(sized, (int) total, n);
                } else if (buffer.hasArray()) {
                    grown.write(buffer.array(), buffer.arrayOffset() + buffer.position(), n);
                } else {
                    var copy = new byte[n];
                    buffer.slice().get(copy);
                    grown.write(copy, 0, n);
                }
                total += n;
            } finally {
                chunk.release();
            }
            if (chunk.isLast()) {
                if (sized == null) return grown.toByteArray();
                if (total != sized.length) throw ApiErrors.invalidBody().exception();
                return sized;
            }
        }
    }

    static void awaitContent(Request request) {
        try (Blocker.Runnable demand = Blocker.runnable()) {
            request.demand(demand);
            demand.block();
        } catch (IOException e) {
            throw readFailure(e);
        }
    }

    /** Waits for more of the body until the pace's deadline; past it, 408 (the connection is closed after). */
    static void awaitContent(Request request, BodyPace.Clock clock) {
        var arrived = new java.util.concurrent.CountDownLatch(1);
        request.demand(arrived::countDown);
        try {
            long left = clock.remaining(System.nanoTime());
            if (left <= 0 || !arrived.await(left, java.util.concurrent.TimeUnit.NANOSECONDS))
                throw ApiErrors.requestTimeout().exception();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiErrors.requestTimeout().exception();
        }
    }

    static HttpStatusException readFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof HttpException http && http.getCode() == 413) return ApiErrors.bodyTooLarge().exception();
            if (t instanceof TimeoutException) return ApiErrors.requestTimeout().exception();
        }
        return ApiErrors.invalidBody().exception();
    }
}
