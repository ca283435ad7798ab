import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many subscribers of one run's {@code GET /v1/runs/{id}/events}, read by a few selector threads instead of a thread per
 * socket: the bench shares the server's cores, and a blocking reader per socket cost it as much CPU per delivered event
 * as the server spent sending it (a timed park, a poller registration and a read per frame, bench/README.md, issue 41).
 * Here a frame costs the bench one {@code read} and a scan of its bytes.
 *
 * <p>Each subscriber sends an HTTP/1.1 request, as browsers and SDKs do, checks the status line, undoes the chunked
 * framing, and keeps its connection open after the stream's last chunk, as a keep-alive client does. For every
 * {@code data:} line takes {@code "seq"} (must be 1, 2, 3… without a gap) and {@code "timestamp"} (seconds, set when the
 * event was journaled) and records the delivery latency: receipt time minus that timestamp, in ms. Above 25,000
 * subscribers the sockets are spread over source addresses 127.0.0.2, 127.0.0.3 … so that the ephemeral ports of one
 * address do not run out.
 */
final class SseReaders implements AutoCloseable {
    private static final int PER_SOURCE_ADDRESS = 25_000;
    private static final int CONNECTORS = 32;
    private static final byte[] TIMESTAMP = "\"timestamp\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SEQ = "\"seq\":".getBytes(StandardCharsets.US_ASCII);

    /** One subscriber's socket and what it has seen. Confined to its selector's thread after connecting. */
    private static final class Subscriber {
        final SocketChannel channel;
        byte[] line = new byte[512];
        int lineLength;
        boolean headersDone;
        boolean statusChecked;
        boolean chunked;
        boolean ended;                 // the last chunk arrived, or the server closed
        long chunkLeft = -1;           // bytes left in the current chunk; -1 while reading a chunk-size line
        boolean chunkExtension;        // past the size digits of a chunk-size line
        long chunkSize;
        int chunkCrlf;                 // line-end bytes still to skip after a chunk's data
        long lastSeq;
        boolean gap;
        int frames;
        final long[] latencies;

        Subscriber(SocketChannel channel, int expected) {
            this.channel = channel;
            this.latencies = new long[expected];
        }
    }

    final AtomicInteger connected = new AtomicInteger();
    final AtomicInteger errors = new AtomicInteger();
    final AtomicInteger complete = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private final List<Subscriber> subscribers = new ArrayList<>();
    private final Selector[] selectors;
    private final Thread[] threads;
    private final int expected;
    private final int count;

    /**
     * Connects {@code count} subscribers to {@code runId}'s events (blocking connects, one after another) and starts
     * {@code threads} selector threads reading them; each subscriber expects {@code expected} frames.
     */
    SseReaders(URI server, String key, String runId, int count, int expected, int threads) throws IOException {
        this.expected = expected;
        this.count = count;
        this.selectors = new Selector[threads];
        this.threads = new Thread[threads];
        for (int t = 0; t < threads; t++) selectors[t] = Selector.open();
        var request = ByteBuffer.wrap(("GET /v1/runs/" + runId + "/events HTTP/1.1\r\nHost: " + server.getHost()
                + "\r\nAuthorization: Bearer " + key + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        var target = new InetSocketAddress(server.getHost(), server.getPort());
        // Connected from CONNECTORS threads at once: one after another, the listen queue overflowed now and then and
        // each overflow cost a 1 s SYN retry (94 s to connect 10,000).
        var next = new AtomicInteger();
        var connectors = new ArrayList<Thread>();
        for (int c = 0; c < CONNECTORS; c++)
            connectors.add(Thread.ofVirtual().start(() -> {
                for (int i; (i = next.getAndIncrement()) < count; ) connect(i, target, request);
            }));
        for (var c : connectors) {
            try {
                c.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while connecting", e);
            }
        }
        for (int i = 0; i < subscribers.size(); i++) {
            var s = subscribers.get(i);
            s.channel.register(selectors[i % threads], SelectionKey.OP_READ, s);
        }
        for (int t = 0; t < threads; t++) {
            var selector = selectors[t];
            this.threads[t] = Thread.ofPlatform().name("sse-reader-" + t).daemon().start(() -> loop(selector));
        }
    }

    /** Waits until every subscriber's status line was read (or it failed), or {@code timeout} passed. */
    boolean awaitConnected(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (connected.get() + errors.get() < count && System.nanoTime() < deadline) Thread.sleep(20);
        return connected.get() == count;
    }

    /** Waits until every stream ended (its last chunk, or the connection closed or failed), or {@code timeout} passed. */
    boolean awaitEnded(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (open.get() > 0 && System.nanoTime() < deadline) Thread.sleep(20);
        return open.get() == 0;
    }

    /** The latencies of each frame (index 0 = the first frame), sorted: which events were slow. */
    long[][] latenciesByFrame() {
        var byFrame = new long[expected][];
        for (int f = 0; f < expected; f++) {
            int frame = f;
            byFrame[f] = subscribers.stream().filter(s -> s.frames > frame).mapToLong(s -> s.latencies[frame]).sorted().toArray();
        }
        return byFrame;
    }

    /** What the first {@code max} subscribers that did not get every frame gap-free saw (diagnostics). */
    List<String> incomplete(int max) {
        return subscribers.stream().filter(s -> s.frames != expected || s.gap).limit(max)
                .map(s -> "frames " + s.frames + " of " + expected + ", last seq " + s.lastSeq + (s.gap ? ", a gap" : "")
                        + (s.ended ? ", ended" : ", not ended") + (s.chunked ? "" : ", not chunked")
                        + (s.channel.isOpen() ? "" : ", closed by the server"))
                .toList();
    }

    /** Every recorded latency in ms, sorted. */
    long[] latencies() {
        return subscribers.stream().flatMapToLong(s -> Arrays.stream(s.latencies, 0, Math.min(s.frames, s.latencies.length)))
                .sorted().toArray();
    }

    private void connect(int i, InetSocketAddress target, ByteBuffer request) {
        try {
            var channel = SocketChannel.open();
            if (count > PER_SOURCE_ADDRESS)
                channel.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (2 + i / PER_SOURCE_ADDRESS)}), 0));
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.connect(target);
            var r = request.duplicate();
            while (r.hasRemaining()) channel.write(r);
            channel.configureBlocking(false);
            synchronized (subscribers) {
                subscribers.add(new Subscriber(channel, expected));
            }
            open.incrementAndGet();
        } catch (IOException e) {
            if (errors.incrementAndGet() == 1) System.err.println("  first connect error: " + e);
        }
    }

    private void loop(Selector selector) {
        var buffer = ByteBuffer.allocateDirect(64 * 1024);
        var bytes = new byte[64 * 1024];
        try {
            while (selector.isOpen()) {
                selector.select(key -> {
                    var s = (Subscriber) key.attachment();
                    try {
                        buffer.clear();
                        int n = s.channel.read(buffer);
                        if (n < 0) {
                            finish(s, key);
                            return;
                        }
                        long now = System.currentTimeMillis();
                        buffer.flip();
                        buffer.get(bytes, 0, n);
                        consume(s, bytes, n, now);
                    } catch (IOException e) {
                        finish(s, key);
                    }
                }, 1000);
            }
        } catch (IOException | java.nio.channels.ClosedSelectorException e) {
            // closed
        }
    }

    /** The server closed the connection (or it failed). */
    private void finish(Subscriber s, SelectionKey key) {
        key.cancel();
        try {
            s.channel.close();
        } catch (IOException ignored) {
            // closing
        }
        if (!s.statusChecked) errors.incrementAndGet(); // closed before it answered
        ended(s);
    }

    /** The stream is over: its last chunk arrived or the connection closed. */
    private void ended(Subscriber s) {
        if (s.ended) return;
        s.ended = true;
        if (s.frames == expected && !s.gap) complete.incrementAndGet();
        open.decrementAndGet();
    }

    private void consume(Subscriber s, byte[] bytes, int n, long now) {
        for (int i = 0; i < n; i++) {
            byte b = bytes[i];
            if (!s.headersDone) {
                header(s, b);
            } else if (!s.chunked) {
                body(s, b, now);
            } else if (s.chunkCrlf > 0) {
                s.chunkCrlf--; // the CRLF after a chunk's data
            } else if (s.chunkLeft < 0) {
                chunkSizeLine(s, b);
            } else {
                body(s, b, now);
                if (--s.chunkLeft == 0) {
                    s.chunkLeft = -1;
                    s.chunkCrlf = 2;
                }
            }
        }
    }

    private void header(Subscriber s, byte b) {
        if (b == '\r') return;
        if (b != '\n') {
            append(s, b);
            return;
        }
        var line = new String(s.line, 0, s.lineLength, StandardCharsets.US_ASCII);
        s.lineLength = 0;
        if (!s.statusChecked) {
            s.statusChecked = true;
            if (line.contains(" 200 ")) {
                connected.incrementAndGet();
            } else if (errors.incrementAndGet() == 1) {
                System.err.println("  first subscriber refused: " + line);
            }
        } else if (line.isEmpty()) {
            s.headersDone = true;
        } else if (line.toLowerCase(java.util.Locale.ROOT).replace(" ", "").equals("transfer-encoding:chunked")) {
            s.chunked = true;
        }
    }

    /** A chunk-size line: hex digits, maybe an extension, CRLF; size 0 is the last chunk. */
    private void chunkSizeLine(Subscriber s, byte b) {
        if (b == '\n') {
            if (s.chunkSize == 0) {
                ended(s); // the last chunk (a trailer would follow; the server sends none)
            } else {
                s.chunkLeft = s.chunkSize;
            }
            s.chunkSize = 0;
            s.chunkExtension = false;
            return;
        }
        int digit = Character.digit(b, 16);
        if (digit >= 0 && !s.chunkExtension) {
            s.chunkSize = s.chunkSize * 16 + digit;
        } else if (b != '\r') {
            s.chunkExtension = true; // an extension: ignore the rest of the line
        }
    }

    private static void body(Subscriber s, byte b, long now) {
        if (b == '\n') {
            frameLine(s, now);
            s.lineLength = 0;
        } else {
            append(s, b);
        }
    }

    private static void append(Subscriber s, byte b) {
        if (s.lineLength == s.line.length) s.line = Arrays.copyOf(s.line, s.line.length * 2);
        s.line[s.lineLength++] = b;
    }

    private static void frameLine(Subscriber s, long now) {
        var line = s.line;
        int length = s.lineLength;
        if (length < 6 || line[0] != 'd' || line[1] != 'a' || line[2] != 't' || line[3] != 'a' || line[4] != ':') return;
        int ts = indexOf(line, length, TIMESTAMP);
        int sq = indexOf(line, length, SEQ);
        if (ts < 0 || sq < 0) return;
        long seq = digits(line, length, sq + SEQ.length);
        if (seq != s.lastSeq + 1) s.gap = true;
        s.lastSeq = seq;
        // seconds with up to three decimals: whole seconds, then the fraction's digits as milliseconds
        int p = ts + TIMESTAMP.length;
        long millis = digits(line, length, p) * 1000;
        while (p < length && line[p] >= '0' && line[p] <= '9') p++;
        if (p < length && line[p] == '.') {
            int scale = 100;
            for (p++; p < length && line[p] >= '0' && line[p] <= '9'; p++, scale /= 10)
                if (scale > 0) millis += (line[p] - '0') * scale;
        }
        if (s.frames < s.latencies.length) s.latencies[s.frames] = now - millis;
        s.frames++;
    }

    private static long digits(byte[] line, int length, int from) {
        long v = 0;
        for (int i = from; i < length && line[i] >= '0' && line[i] <= '9'; i++) v = v * 10 + (line[i] - '0');
        return v;
    }

    private static int indexOf(byte[] line, int length, byte[] what) {
        outer:
        for (int i = 0; i <= length - what.length; i++) {
            for (int j = 0; j < what.length; j++) if (line[i + j] != what[j]) continue outer;
            return i;
        }
        return -1;
    }

    @Override
    public void close() throws IOException {
        for (var selector : selectors) selector.close();
        for (var s : subscribers) s.channel.close();
    }
}
