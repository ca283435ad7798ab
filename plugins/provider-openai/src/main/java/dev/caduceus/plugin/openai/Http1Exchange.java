package dev.caduceus.plugin.openai;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * One request/response exchange, run on the calling thread by {@link #send()}; {@link #abort()}
 * from any other thread closes the socket the exchange is using (connecting, writing or reading),
 * which makes the blocked call fail at once. Whoever owns the connection is tracked under this
 * object's lock, so an abort can never close a connection already handed back to the pool.
 *
 * <p>A pooled connection may have been closed by the server while it sat idle. If the request
 * cannot be written on a reused connection, or the connection ends before the first byte of the
 * status line, the server never saw or never answered the request, and it is sent once more on a
 * new connection. Once any response byte has arrived nothing is retried.
 */
final class Http1Exchange implements AutoCloseable {
    private final Http1Request request;
    private final Origin origin;
    private final ConnectionPool pool;
    private final SocketOpener opener;
    private AutoCloseable owned; // guarded by this: the socket being connected, or the connection in use
    private boolean aborted; // guarded by this
    private ResponseBody body; // the calling thread's only

    Http1Exchange(Http1Request request, ConnectionPool pool, SocketOpener opener) {
        this.request = request;
        this.origin = Origin.of(request.uri());
        this.pool = pool;
        this.opener = opener;
    }

    /** Sends the request and waits for the response head; the body then streams from the response. */
    Http1Response send() throws IOException {
        byte[] message = RequestEncoder.encode(request, origin);
        var pooled = pool.borrow(origin);
        if (pooled != null) {
            own(pooled);
            try {
                return exchange(pooled, message);
            } catch (StaleConnection e) {
                release(pooled, false);
                if (isAborted()) throw e.getCause();
                // the server had closed it while idle: one more try, on a connection of our own
            }
        }
        var fresh = opener.open(origin, socket -> own(socket));
        own(fresh);
        return exchange(fresh, message);
    }

    private Http1Response exchange(Http1Connection connection, byte[] message) throws IOException {
        try {
            var in = connection.in();
            awaitAnswer(connection, message);
            var head = ResponseHead.read(HttpLines.read(in, ResponseHead.MAX_LINE, "status line"), in);
            while (head.status() < 200) { // 100 Continue, 103 Early Hints: the real answer follows
                if (head.status() == 101) throw new IOException("Unexpected 101 Switching Protocols from upstream");
                head = ResponseHead.read(HttpLines.read(in, ResponseHead.MAX_LINE, "status line"), in);
            }
            var decoder = decoder(head, in);
            boolean keepAlive = head.keepAlive() && !(head.headers().firstValue("Transfer-Encoding").isPresent()
                    && head.headers().firstValue("Content-Length").isPresent()); // RFC 9112 §6.3: close after
            body = new ResponseBody(decoder, keepAlive, connection, this::release);
            return new Http1Response(head.status(), head.headers(), body);
        } catch (StaleConnection e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            release(connection, false);
            throw e;
        }
    }

    /** Writes the request and waits for the first response byte, telling a stale connection apart. */
    private void awaitAnswer(Http1Connection connection, byte[] message) throws IOException {
        var in = connection.in();
        try {
            connection.out().write(message);
            connection.out().flush();
            in.mark(1);
            if (in.read() < 0) throw new EOFException("Upstream closed the connection without answering");
            in.reset();
        } catch (IOException e) {
            if (connection.reused()) throw new StaleConnection(e);
            throw e;
        }
    }

    private BodyDecoder decoder(ResponseHead head, InputStream in) throws IOException {
        var headers = head.headers();
        if (request.method().equals("HEAD") || head.status() == 204 || head.status() == 304)
            return new FixedLengthBody(in, 0);
        if (headers.firstValue("Transfer-Encoding").isPresent()) {
            var codings = String.join(",", headers.allValues("Transfer-Encoding")).split(",");
            // chunked must be the final coding; anything else is delimited by the close (RFC 9112 §6.3)
            return codings[codings.length - 1].strip().equalsIgnoreCase("chunked") ? new ChunkedBody(in)
                    : new CloseDelimitedBody(in);
        }
        var lengths = headers.allValues("Content-Length");
        if (lengths.isEmpty()) return new CloseDelimitedBody(in);
        long length = -1;
        for (var value : String.join(",", lengths).split(",")) {
            long parsed;
            try {
                parsed = Long.parseLong(value.strip());
            } catch (NumberFormatException e) {
                throw new IOException("Malformed Content-Length: " + ResponseHead.printable(value));
            }
            if (parsed < 0 || (length >= 0 && parsed != length))
                throw new IOException("Malformed Content-Length: " + ResponseHead.printable(String.join(",", lengths)));
            length = parsed;
        }
        return new FixedLengthBody(in, length);
    }

    /** Takes ownership of a socket or connection, unless the exchange was aborted meanwhile. */
    private synchronized void own(AutoCloseable resource) throws IOException {
        if (aborted) {
            closeQuietly(resource);
            throw new IOException("aborted");
        }
        owned = resource;
    }

    /** Gives the connection back to the pool, or closes it. */
    private void release(Http1Connection connection, boolean reusable) {
        boolean keep;
        synchronized (this) {
            keep = reusable && !aborted && owned == connection;
            if (owned == connection) owned = null;
        }
        if (keep) pool.release(connection);
        else connection.close();
    }

    private synchronized boolean isAborted() {
        return aborted;
    }

    /** From any thread: fails the blocked (or next) step of this exchange at once. */
    void abort() {
        AutoCloseable victim;
        synchronized (this) {
            aborted = true;
            victim = owned;
        }
        if (victim != null) closeQuietly(victim);
    }

    /** Ends the exchange: the body is closed (its connection pooled only if it was fully read). */
    @Override
    public void close() {
        if (body != null) body.close();
        AutoCloseable left;
        synchronized (this) {
            left = owned;
            owned = null;
        }
        if (left != null) closeQuietly(left);
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            // discarding a socket: a failed close changes nothing
        }
    }

    /** A reused connection failed before any answer: the request may be sent again. */
    private static final class StaleConnection extends IOException {
        StaleConnection(IOException cause) {
            super(cause.getMessage(), cause);
        }

        @Override
        public synchronized IOException getCause() {
            return (IOException) super.getCause();
        }
    }
}
