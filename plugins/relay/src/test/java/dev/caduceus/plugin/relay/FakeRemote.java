package dev.caduceus.plugin.relay;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A scripted remote agent server for the relay's tests: answers each request with the next script
 * (status, raw SSE lines with optional pauses, or a hang), records requests, and notices when the
 * client went away.
 */
final class FakeRemote implements AutoCloseable {
    /** One request as received. */
    record Received(String method, String path, Map<String, List<String>> headers, String body) {
        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().getFirst()).findFirst().orElse(null);
        }
    }

    /** How to answer: {@code lines} are written one by one; a line {@code "@sleep N"} pauses N ms. */
    record Script(int status, String contentType, List<String> lines, boolean hang, boolean pings) {
        static Script sse(String... lines) {
            return new Script(200, "text/event-stream", List.of(lines), false, false);
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
    final CountDownLatch clientGone = new CountDownLatch(1);
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

    private void handle(HttpExchange exchange) throws IOException {
        var body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                Map.copyOf(exchange.getRequestHeaders()), body));
        var s = script;
        if (exchange.getRequestURI().getPath().equals("/health")) s = Script.error(200, "{\"status\":\"ok\"}");
        exchange.getResponseHeaders().set("Content-Type", s.contentType());
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
        server.stop(0);
    }
}
