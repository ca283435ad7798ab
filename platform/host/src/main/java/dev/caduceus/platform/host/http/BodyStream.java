package dev.caduceus.platform.host.http;

import dev.caduceus.spi.http.HttpStatusException;
import java.io.InputStream;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

/**
 * A request body read as it arrives ({@link dev.caduceus.spi.http.HttpExchange#bodyStream()}), for uploads: the
 * same limit, pace and failures as {@link BodyReader}, one chunk held at a time. Closing it early reads
 * nothing more: the rest is discarded when the answer is written. Confined to the handler's thread.
 */
final class BodyStream extends InputStream {
    private final Request request;
    private final long maxBytes;
    private final BodyPace.Clock clock;
    private Content.Chunk chunk;
    private long total;
    private boolean ended;
    private boolean closed;

    BodyStream(Request request, long maxBytes, BodyPace pace) {
        this.request = request;
        this.maxBytes = maxBytes;
        this.clock = pace.off() ? null : pace.start(System.nanoTime());
        if (request.getLength() > maxBytes) throw ApiErrors.bodyTooLarge().exception();
    }

    /** Whether the whole body was read. */
    boolean ended() {
        return ended;
    }

    @Override
    public int read() {
        var one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] into, int offset, int length) throws HttpStatusException {
        java.util.Objects.checkFromIndexSize(offset, length, into.length);
        if (closed) throw new IllegalStateException("the body stream is closed");
        if (length == 0) return 0;
        while (true) {
            if (chunk != null && chunk.hasRemaining()) {
                int n = Math.min(length, chunk.remaining());
                chunk.getByteBuffer().get(into, offset, n);
                if (!chunk.hasRemaining()) finishChunk();
                return n;
            }
            if (chunk != null) finishChunk();
            if (ended) return -1;
            next();
        }
    }

    /** Takes the next chunk, waiting (at the pace) for it; checks the limit as it comes. */
    private void next() {
        var c = request.read();
        if (c == null) {
            if (clock == null) BodyReader.awaitContent(request);
            else BodyReader.awaitContent(request, clock);
            return;
        }
        if (clock != null) clock.arrived(c.remaining(), System.nanoTime());
        if (Content.Chunk.isFailure(c)) {
            c.release();
            throw BodyReader.readFailure(c.getFailure());
        }
        total += c.remaining();
        if (total > maxBytes) {
            c.release();
            throw ApiErrors.bodyTooLarge().exception();
        }
        chunk = c;
    }

    private void finishChunk() {
        if (chunk.isLast()) ended = true;
        chunk.release();
        chunk = null;
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        if (chunk != null) {
            if (chunk.isLast() && !chunk.hasRemaining()) ended = true;
            chunk.release();
            chunk = null;
        }
    }
}
