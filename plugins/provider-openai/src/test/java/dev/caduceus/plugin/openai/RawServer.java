package dev.caduceus.plugin.openai;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A plain {@link ServerSocket} on 127.0.0.1 that a test scripts byte for byte: each accepted
 * connection runs the next {@link Script} (in {@link #then} order) on its own virtual thread, so
 * framing, keep-alive and broken answers are exactly what the test wrote.
 */
final class RawServer implements AutoCloseable {
    /** What one accepted connection does. */
    interface Script {
        void run(Peer peer) throws Exception;
    }

    /** A request as the server read it. */
    record Received(String requestLine, Map<String, String> headers, String body) {}

    private final ServerSocket socket;
    private final BlockingQueue<Script> scripts = new LinkedBlockingQueue<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private final CopyOnWriteArrayList<Socket> open = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    RawServer() throws IOException {
        socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = Thread.ofVirtual().start(this::acceptLoop);
    }

    RawServer then(Script script) {
        scripts.add(script);
        return this;
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + socket.getLocalPort() + path);
    }

    /** Connections accepted so far. */
    int accepted() {
        return accepted.get();
    }

    /** Requests read so far, over every connection. */
    int requests() {
        return requests.get();
    }

    private void acceptLoop() {
        while (!socket.isClosed()) {
            try {
                var s = socket.accept();
                accepted.incrementAndGet();
                open.add(s);
                var script = scripts.poll();
                Thread.ofVirtual().start(() -> {
                    try (s) {
                        if (script != null) script.run(new Peer(s, requests));
                    } catch (Exception e) {
                        // the client went away, or the script broke the connection on purpose
                    }
                });
            } catch (IOException e) {
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
        for (var s : open) s.close();
        acceptor.interrupt();
    }

    /** One accepted connection, as the script sees it. */
    static final class Peer {
        private final Socket socket;
        private final AtomicInteger requests;
        private final InputStream in;
        private final OutputStream out;

        Peer(Socket socket, AtomicInteger requests) throws IOException {
            this.socket = socket;
            this.requests = requests;
            this.in = new BufferedInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
        }

        /** Reads one request (head and Content-Length body); {@code null} when the client closed. */
        Received read() throws IOException {
            var requestLine = line();
            if (requestLine == null) return null;
            var headers = new LinkedHashMap<String, String>();
            for (String line; !(line = line()).isEmpty(); ) {
                int colon = line.indexOf(':');
                headers.put(line.substring(0, colon).strip().toLowerCase(Locale.ROOT), line.substring(colon + 1).strip());
            }
            int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
            var body = in.readNBytes(length);
            if (body.length == length) requests.incrementAndGet();
            return new Received(requestLine, headers, new String(body, ISO_8859_1));
        }

        void write(String text) throws IOException {
            write(text.getBytes(ISO_8859_1));
        }

        void write(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }

        /** Answers {@code 200} with a Content-Length body. */
        void ok(String body) throws IOException {
            write("HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
        }

        /** Blocks until the client closes the connection (or the test ends). */
        void awaitClose() throws IOException {
            while (in.read() >= 0) {
                // drain
            }
        }

        void close() throws IOException {
            socket.close();
        }

        /** Closes with a TCP reset (SO_LINGER 0) instead of an orderly FIN. */
        void reset() throws IOException {
            socket.setSoLinger(true, 0);
            socket.close();
        }

        private String line() throws IOException {
            var bytes = new ByteArrayOutputStream();
            for (int b; (b = in.read()) != '\n'; ) {
                if (b < 0) return bytes.size() == 0 ? null : bytes.toString(ISO_8859_1);
                bytes.write(b);
            }
            var text = bytes.toString(ISO_8859_1);
            return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
        }
    }
}
