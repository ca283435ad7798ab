package dev.caduceus.plugin.openai;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * A response body as it arrives. {@link #close()} hands the connection back: to the pool when the
 * body was read to its end and the response allows keep-alive, otherwise the socket is closed (a
 * half-read connection is never reused: the next response would start in the middle of this one).
 * Read and closed by one thread.
 */
final class ResponseBody extends InputStream {
    /** Receives the connection when the body is closed. */
    interface Release {
        void release(Http1Connection connection, boolean reusable);
    }

    private final BodyDecoder decoder;
    private final boolean keepAlive;
    private final Http1Connection connection;
    private final Release release;
    private boolean broken;
    private boolean closed;

    ResponseBody(BodyDecoder decoder, boolean keepAlive, Http1Connection connection, Release release) {
        this.decoder = decoder;
        this.keepAlive = keepAlive && decoder.delimited();
        this.connection = connection;
        this.release = release;
    }

    @Override
    public int read() throws IOException {
        try {
            return decoder.read();
        } catch (IOException e) {
            broken = true;
            throw e;
        }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        try {
            return decoder.read(b, off, len);
        } catch (IOException e) {
            broken = true;
            throw e;
        }
    }

    /**
     * Reads and drops what is left of the body if it ends within {@code wait} and {@code maxBytes},
     * so that {@link #close()} can reuse the connection. For a caller that has all it needs before
     * the framing ends (an SSE stream's {@code [DONE]} arrives just before the last chunk); otherwise
     * gives up, and close() closes the socket.
     */
    void skipRemainder(Duration wait, int maxBytes) {
        if (closed || broken || !keepAlive || decoder.atEnd()) return;
        var scratch = new byte[4096];
        try {
            connection.readTimeout((int) Math.max(1, wait.toMillis()));
            for (int total = 0, n; total <= maxBytes && (n = decoder.read(scratch, 0, scratch.length)) >= 0; )
                total += n;
            connection.readTimeout(0);
        } catch (SocketTimeoutException e) {
            broken = true; // the server keeps the response open: not worth waiting for
        } catch (IOException e) {
            broken = true;
        }
    }

    /** Whether the connection may carry another exchange once this body is closed. */
    boolean reusable() {
        return keepAlive && !broken && decoder.atEnd();
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        release.release(connection, reusable());
    }
}
