package dev.caduceus.plugin.relay;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A scripted remote agent server for the relay's tests: answers each request with the next script
 * (status, raw SSE lines with optional pauses, or a hang), records requests, and notices when the
 * client went away. {@link #route} scripts one method and path (the runs API's submit, events,
 * approval and stop): successive requests take successive scripts, the last one repeating; every
 * other request gets the {@link #answer} script. A line {@code "@await N METHOD PATH"} holds the
 * answer until N such requests have arrived (10 s at most), so a stream can wait for the client's
 * approval answer or stop; a line {@code "@stall"} holds it, connection open, until the remote is
 * closed (a remote that stops sending mid-stream).
 */
final class FakeRemote implements AutoCloseable {
    /** One request as received. */
    record Received(String method, String path, Map<String, List<String>> headers, String body) {
        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().getFirst()).findFirst().orElse(null);
        }
    }

    /**
     * How to answer: {@code lines} are written one by one; a line {@code "@sleep N"} pauses N ms.
     * {@code headers} are added to the answer.
     */
    record Script(int status, String contentType, List<String> lines, boolean hang, boolean pings,
                  Map<String, String> headers) {
        Script(int status, String contentType, List<String> lines, boolean hang, boolean pings) {
            this(status, contentType, lines, hang, pings, Map.of());
        }

        /** A redirect to {@code location}. */
        static Script redirect(int status, String location) {
            return new Script(status, "text/plain", List.of(), false, false, Map.of("Location", location));
        }

        static Script sse(String... lines) {
            return new Script(200, "text/event-stream", List.of(lines), false, false);
        }

        static Script json(int status, String body) {
            return new Script(status, "application/json", List.of(body), false, false);
        }

        static Script error(int status, String body) {
            return new Script(status, "application/json", List.of(body), false, false);
        }

        /** Headers, then silence. */
        static Script silent() {
            return new Script(200, "text/event-stream", List.of(), true, false);
        }

        /** Headers, then a comment every 50 ms, forever: an agent that works and works. */
        static Script busy() {
            return new Script(200, "text/event-stream", List.of(), true, true);
        }
    }

    final List<Received> received = new CopyOnWriteArrayList<>();
    private final Map<String, Deque<Script>> routes = new ConcurrentHashMap<>();
    final CountDownLatch clientGone = new CountDownLatch(1);
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile Script script = Script.error(500, "{\"error\":{\"message\":\"no script\"}}");
    private final HttpServer server;

    FakeRemote() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    FakeRemote answer(Script next) {
        script = next;
        return this;
    }

    /** Answers {@code method path} with {@code scripts}, one per request, the last one repeating. */
    FakeRemote route(String method, String path, Script... scripts) {
        routes.put(method + " " + path, new ArrayDeque<>(List.of(scripts)));
        return this;
    }

    /** The requests received for {@code method path}, in order. */
    List<Received> requests(String method, String path) {
        return received.stream().filter(r -> r.method().equals(method) && r.path().equals(path)).toList();
    }

    /** Waits until {@code count} requests for {@code method path} have arrived; false after {@code millis}. */
    boolean awaitRequests(int count, String method, String path, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        synchronized (received) {
            while (requests(method, path).size() < count) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) return false;
                received.wait(left);
            }
            return true;
        }
    }

    /** Waits until any request has arrived; false after {@code millis}. */
    boolean awaitAnyRequest(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        synchronized (received) {
            while (received.isEmpty()) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) return false;
                received.wait(left);
            }
            return true;
        }
    }

    private Script scriptFor(String method, String path) {
        var queue = routes.get(method + " " + path);
        if (queue == null) return script;
        synchronized (queue) {
            return queue.size() > 1 ? queue.poll() : queue.peek();
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        var body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        var method = exchange.getRequestMethod();
        var path = exchange.getRequestURI().getPath();
        synchronized (received) {
            received.add(new Received(method, path, Map.copyOf(exchange.getRequestHeaders()), body));
            received.notifyAll();
        }
        var s = scriptFor(method, path);
        if (exchange.getRequestURI().getPath().equals("/health")) s = Script.error(200, "{\"status\":\"ok\"}");
        exchange.getResponseHeaders().set("Content-Type", s.contentType());
        s.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
        try {
            if (s.hang()) {
                exchange.sendResponseHeaders(200, 0);
                OutputStream out = exchange.getResponseBody();
                out.flush();
                for (int i = 0; i < 600; i++) {
                    Thread.sleep(50);
                    if (!s.pings()) continue;
                    try {
                        out.write(": working\n\n".getBytes(StandardCharsets.UTF_8));
                        out.flush();
                    } catch (IOException gone) {
                        clientGone.countDown();
                        return;
                    }
                }
                return;
            }
            exchange.sendResponseHeaders(s.status(), 0);
            try (OutputStream out = exchange.getResponseBody()) {
                for (var line : s.lines()) {
                    if (line.startsWith("@sleep ")) {
                        Thread.sleep(Long.parseLong(line.substring(7)));
                        continue;
                    }
                    if (line.equals("@stall")) {
                        closed.await(60, TimeUnit.SECONDS);
                        continue;
                    }
                    if (line.startsWith("@await ")) {
                        var words = line.substring(7).split(" ");
                        awaitRequests(Integer.parseInt(words[0]), words[1], words[2], 10_000);
                        continue;
                    }
                    out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            }
        } catch (IOException e) {
            clientGone.countDown();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            exchange.close();
        }
    }

    boolean awaitClientGone(long millis) throws InterruptedException {
        return clientGone.await(millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
    }
}
