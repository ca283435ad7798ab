package dev.caduceus.platform.outbound;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Response;

/**
 * A response whose headers arrived. The body comes from Jetty's {@link InputStreamResponseListener}
 * (gzip already decoded by Jetty; {@code deflate} inflated here), and every read failure is turned
 * into a {@link Failure}. Reading the body to its end returns the connection to the pool (the end is
 * reported only once Jetty has put it back, so a next request finds it); closing it earlier discards
 * the connection. Threading: read on one thread; {@link #close()} from any.
 */
final class JettyResponse implements OutboundHttp.Response {
    /** Completion follows the end of the content by microseconds; this only bounds a surprise. */
    private static final long SETTLE_LIMIT_MS = 1_000;

    private final JettyExchange exchange;
    private final Response head;
    private final InputStreamResponseListener listener;
    private final URI uri;
    private final int maxLineBytes;
    private final InputStream body;
    private volatile boolean released;
    private boolean settled;

    JettyResponse(JettyExchange exchange, Response head, InputStreamResponseListener listener, URI uri, int maxLineBytes) {
        this.exchange = exchange;
        this.head = head;
        this.listener = listener;
        this.uri = uri;
        this.maxLineBytes = maxLineBytes;
        var raw = new Guarded(listener.getInputStream(), true);
        var encoding = head.getHeaders().get("Content-Encoding");
        this.body = encoding != null && encoding.strip().toLowerCase(Locale.ROOT).equals("deflate")
                ? new Guarded(new InflaterInputStream(raw, new Inflater()), false) : raw;
    }

    @Override
    public int status() {
        return head.getStatus();
    }

    @Override
    public String protocol() {
        return head.getVersion().asString();
    }

    @Override
    public URI uri() {
        return uri;
    }

    @Override
    public Optional<String> header(String name) {
        return Optional.ofNullable(head.getHeaders().get(name));
    }

    @Override
    public List<String> headers(String name) {
        return head.getHeaders().getValuesList(name);
    }

    @Override
    public InputStream body() {
        return body;
    }

    @Override
    public String text(int maxBytes) throws Failure {
        try {
            return new String(body.readNBytes(maxBytes), StandardCharsets.UTF_8);
        } catch (Failure f) {
            throw f;
        } catch (IOException e) {
            throw exchange.bodyFailure(e);
        } finally {
            close();
        }
    }

    @Override
    public OutboundHttp.Events events() {
        return new SseEvents(body, maxLineBytes, exchange.target());
    }

    @Override
    public OutboundHttp.Events events(Consumer<String> comments) {
        return new SseEvents(body, maxLineBytes, exchange.target(), Objects.requireNonNull(comments, "comments"));
    }

    @Override
    public void close() {
        exchange.close();
    }

    /** Closes the body stream: a no-op after the end, else Jetty aborts the response and drops its connection. */
    void release() {
        if (released) return;
        released = true;
        try {
            listener.getInputStream().close();
        } catch (IOException e) {
            // closing an aborted stream reports the abort again; the exchange is over either way
        }
    }

    /**
     * At the body's end, waits for the exchange to complete: Jetty signals the end of the content
     * before it releases the connection to the pool, and a caller that sent its next request in
     * between would open a second connection.
     */
    private int settled(int read) {
        if (read >= 0 || settled) return read;
        settled = true;
        try {
            listener.await(SETTLE_LIMIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException e) {
            // the body is whole; the connection goes back whenever Jetty completes
        }
        return read;
    }

    /**
     * Turns what reading the body throws into {@link Failure}s: IOExceptions, and the unchecked ones
     * Jetty's stream rethrows as they are (a protocol handler's {@code HttpResponseException}).
     */
    private final class Guarded extends InputStream {
        private final InputStream in;
        private final boolean raw;

        /** {@code raw}: Jetty's own stream, whose end is the exchange's (not an inflater's). */
        Guarded(InputStream in, boolean raw) {
            this.in = in;
            this.raw = raw;
        }

        // Jetty's stream rethrows a failure that is a RuntimeException (an HttpResponseException) as is
        @Override
        public int read() throws IOException {
            try {
                return raw ? settled(in.read()) : in.read();
            } catch (IOException | RuntimeException e) {
                throw exchange.bodyFailure(e);
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                return raw ? settled(in.read(b, off, len)) : in.read(b, off, len);
            } catch (IOException | RuntimeException e) {
                throw exchange.bodyFailure(e);
            }
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }

        @Override
        public void close() {
            exchange.close();
        }
    }
}
