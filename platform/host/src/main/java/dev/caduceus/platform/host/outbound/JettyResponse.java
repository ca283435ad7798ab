package dev.caduceus.platform.host.outbound;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.nio.channels.AsynchronousCloseException;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.Response;

/**
 * A response whose headers arrived. The body is Jetty's content source read on the caller's thread
 * ({@link SourceStream}; gzip already decoded by Jetty; {@code deflate}, zlib or raw, inflated here by {@link DeflateBody}),
 * and every read failure is turned into a {@link Failure}. Reading the body to its end returns the
 * connection to the pool; closing it earlier discards the connection. Threading: read on one
 * thread; {@link #close()} from any.
 */
final class JettyResponse implements OutboundHttp.Response {
    private final OutboundExchange exchange;
    private final Response head;
    private final URI uri;
    private final int maxLineBytes;
    private final SourceStream stream;
    private final InputStream body;
    private final BodyListener listener;
    private volatile boolean released;

    JettyResponse(OutboundExchange exchange, BodyListener.Head head, BodyListener listener, URI uri, int maxLineBytes) {
        this.exchange = exchange;
        this.head = head.response();
        this.uri = uri;
        this.maxLineBytes = maxLineBytes;
        this.listener = listener;
        this.stream = head.body();
        var raw = new Guarded(stream);
        var encoding = this.head.getHeaders().get("Content-Encoding");
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

    /**
     * Closes the body. Once the whole body arrived (read or not: the pump reads ahead) the connection
     * goes back to the pool, and this waits until it is there; before that Jetty aborts the response
     * and drops the connection. An abort that finds the exchange already complete (the end arrived
     * meanwhile) counts as arrived.
     */
    void release() {
        if (released) return;
        released = true;
        boolean arrived = stream.received() || !aborted(head.abort(new AsynchronousCloseException()));
        stream.close();
        if (arrived) awaitPooled();
    }

    private static boolean aborted(java.util.concurrent.CompletableFuture<Boolean> abort) {
        try {
            return abort.get(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return true; // the connection is dropped rather than trusted
        }
    }

    /**
     * After the end of the body, waits until Jetty has finished the exchange, which it does just after
     * handing out the end: only then is the connection back in the pool, and a caller's next request
     * finds it there instead of opening another. Bounded, since the end has already arrived.
     */
    private void awaitPooled() {
        try {
            listener.awaitComplete(1, TimeUnit.SECONDS); // if not finished yet, the connection returns when it is
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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

        /**
         * The rest of the body, in an array sized by what is queued (a whole JSON answer usually is by
         * the time its head is read) instead of {@link InputStream}'s 16 KiB steps, each zeroed and copied.
         * When the array fills, one byte is read before it grows: a body that was all queued ends there,
         * in the one array of its size.
         */
        @Override
        public byte[] readAllBytes() throws IOException {
            byte[] all = new byte[Math.max(available(), 256)];
            int size = 0;
            while (true) {
                if (size == all.length) {
                    int next = read();
                    if (next < 0) return all;
                    all = Arrays.copyOf(all, size + Math.max(available() + 1, size));
                    all[size++] = (byte) next;
                }
                int n = read(all, size, all.length - size);
                if (n < 0) return size == all.length ? all : Arrays.copyOf(all, size);
                size += n;
            }
        }

        /**
         * At the end of Jetty's body, waits (bounded: the end is there) for Jetty to finish the exchange,
         * which puts the connection back in the pool, and reports a failure that came with the finish.
         */
        private int ended(int n) throws IOException {
            if (n >= 0 || in != stream) return n;
            try {
                listener.awaitComplete(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted at the end of the response body");
            }
            var failure = listener.failure();
            if (failure != null) throw exchange.bodyFailure(failure);
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
