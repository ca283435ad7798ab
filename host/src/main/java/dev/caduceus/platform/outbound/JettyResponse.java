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
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Response;

/**
 * A response whose headers arrived. The body comes from Jetty's {@link InputStreamResponseListener}
 * (gzip already decoded by Jetty; {@code deflate}, zlib or raw, inflated here by {@link DeflateBody}),
 * and every read failure is turned into a {@link Failure}. Reading the body to its end returns the
 * connection to the pool; closing it earlier discards the connection. Threading: read on one
 * thread; {@link #close()} from any.
 */
final class JettyResponse implements OutboundHttp.Response {
    private final JettyExchange exchange;
    private final Response head;
    private final URI uri;
    private final int maxLineBytes;
    /** Jetty's stream, taken once: a second {@code getInputStream()} answers a closed dummy stream. */
    private final InputStream stream;
    private final InputStream body;
    private final InputStreamResponseListener listener;
    private volatile boolean released;
    /** Whether Jetty's stream reported the end of the body. */
    private volatile boolean ended;

    JettyResponse(JettyExchange exchange, Response head, InputStreamResponseListener listener, URI uri, int maxLineBytes) {
        this.exchange = exchange;
        this.head = head;
        this.uri = uri;
        this.maxLineBytes = maxLineBytes;
        this.listener = listener;
        this.stream = listener.getInputStream();
        var raw = new Guarded(stream);
        var encoding = head.getHeaders().get("Content-Encoding");
        this.body = encoding != null && encoding.strip().toLowerCase(Locale.ROOT).equals("deflate")
                ? new Guarded(new DeflateBody(raw)) : raw;
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
            stream.close();
        } catch (IOException e) {
            // closing an aborted stream reports the abort again; the exchange is over either way
        }
        if (ended) awaitPooled();
    }

    /**
     * After the end of the body, waits until Jetty has finished the exchange, which it does just after
     * handing out the end: only then is the connection back in the pool, and a caller's next request
     * finds it there instead of opening another. Bounded, since the end has already arrived.
     */
    private void awaitPooled() {
        try {
            listener.await(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException e) {
            // not finished yet: the connection returns to the pool when it is
        }
    }

    /**
     * Turns what reading the body throws into {@link Failure}s: IOExceptions, and the unchecked ones
     * Jetty's stream rethrows as they are (a protocol handler's {@code HttpResponseException}).
     */
    private final class Guarded extends InputStream {
        private final InputStream in;

        Guarded(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            try {
                return ended(in.read());
            } catch (IOException | RuntimeException e) {
                throw exchange.bodyFailure(e);
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                return ended(in.read(b, off, len));
            } catch (IOException | RuntimeException e) {
                throw exchange.bodyFailure(e);
            }
        }

        private int ended(int n) {
            if (n < 0 && in == stream) ended = true;
            return n;
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
