package dev.caduceus.platform.host.outbound;

import java.nio.ByteBuffer;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.io.Content;

/**
 * A request body of bytes known up front: one last chunk, then the end. Jetty's
 * {@code BytesRequestContent} does the same for any number of buffers, and on a model call (one per
 * turn) its generality showed in the profile (a stream summing the buffers' lengths, a serialized
 * invoker and a lock per request; bench/README.md, issue 19's item 6). Rewinds, so a request can be
 * sent again (a retry on a stale pooled connection, a redirect hop).
 *
 * <p>Threading: {@link #read}, {@link #demand} and {@link #rewind} on the sending thread (Jetty calls
 * them one at a time); {@link #fail} from any.
 */
final class BytesContent implements Request.Content {
    private final ByteBuffer bytes; // never moved: each read sends a slice of it
    private volatile boolean read;
    private volatile Content.Chunk failure;

    BytesContent(ByteBuffer bytes) {
        this.bytes = bytes;
    }

    @Override
    public String getContentType() {
        return "application/octet-stream"; // used only when the request has no Content-Type of its own
    }

    @Override
    public long getLength() {
        return bytes.remaining();
    }

    @Override
    public Content.Chunk read() {
        var failed = failure;
        if (failed != null) return failed;
        if (read) return Content.Chunk.EOF;
        read = true;
        return Content.Chunk.from(bytes.slice(), true);
    }

    @Override
    public void demand(Runnable callback) {
        try {
            callback.run(); // everything is here already
        } catch (Throwable x) {
            fail(x);
        }
    }

    @Override
    public void fail(Throwable cause) {
        if (failure == null) failure = Content.Chunk.from(cause);
    }

    @Override
    public boolean rewind() {
        read = false;
        failure = null;
        return true;
    }
}
