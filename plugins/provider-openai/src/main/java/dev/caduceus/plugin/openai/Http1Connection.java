package dev.caduceus.plugin.openai;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/**
 * One open HTTP/1.1 connection: the socket (TLS layered over {@code raw} for https) and its
 * buffered input. Used by one exchange at a time; {@link #close()} may come from any thread and
 * closes the plain socket first, which wakes a reader or writer blocked on it at once (an
 * {@code SSLSocket}'s own close would first try to send close_notify).
 */
final class Http1Connection implements AutoCloseable {
    private static final int READ_BUFFER = 16 * 1024;

    private final Origin origin;
    private final Socket raw;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private volatile long idleSince;
    private volatile boolean reused;

    Http1Connection(Origin origin, Socket raw, Socket socket) throws IOException {
        this.origin = origin;
        this.raw = raw;
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream(), READ_BUFFER);
        this.out = socket.getOutputStream(); // every request is written in one piece: no buffer needed
    }

    Origin origin() {
        return origin;
    }

    /** Buffered (supports mark/reset). */
    InputStream in() {
        return in;
    }

    OutputStream out() {
        return out;
    }

    /** Bounds a blocking read (0: none); only for short waits the caller chose. */
    void readTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    /** Whether this connection already carried an exchange (so the server may have closed it since). */
    boolean reused() {
        return reused;
    }

    /** Called by the pool when it hands the connection out again. */
    void markReused() {
        reused = true;
    }

    long idleSince() {
        return idleSince;
    }

    void markIdle(long nanoTime) {
        idleSince = nanoTime;
    }

    boolean isClosed() {
        return raw.isClosed();
    }

    @Override
    public void close() {
        closeQuietly(raw);
        if (socket != raw) closeQuietly(socket);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // the connection is being discarded; nothing to do with a failed close
        }
    }
}
