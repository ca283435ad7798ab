package dev.caduceus.plugin.web;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A local HTTP server with the fixture pages and fake search backends of the tests. Records every
 * request it receives. Never touches the internet.
 */
final class FixtureServer implements AutoCloseable {
    static final String ARTICLE = """
            <!doctype html><html><head><title>  The   Article </title><style>p{color:red}</style>
            <script>var secret = 1;</script></head><body>
            <nav><a href="/home">Home nav</a></nav>
            <article><h1>Main heading</h1>
            <p>First   paragraph with a <a href="/other">relative link</a> and <b>bold</b> text.</p>
            <!-- a comment that must go -->
            <h2>Lists</h2>
            <ul><li>one</li><li>two<ol><li>nested</li></ol></li></ul>
            <pre><code>int x = 1;
            int y = 2;</code></pre>
            <table><tr><th>Name</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>
            <img src="data:image/png;base64,AAAA" alt="inline"><img src="/pic.png" alt="A picture">
            <form><input name="q"><button>Go</button></form>
            </article><aside>Related junk</aside><footer>Footer junk</footer>
            <noscript>Enable JS</noscript></body></html>
            """;

    /** One request seen by the server; {@code uri} as on the request line (absolute when it came as a proxy). */
    record Seen(String method, String uri, String authorization, String body) {}

    final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final HttpServer server;
    /** Holds the slow pages until the server closes: they never finish on their own. */
    private final CountDownLatch closing = new CountDownLatch(1);

    FixtureServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange ex) throws IOException {
        var body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        seen.add(new Seen(ex.getRequestMethod(), ex.getRequestURI().toString(),
                ex.getRequestHeaders().getFirst("Authorization"), body));
        try (ex) {
            switch (ex.getRequestURI().getPath()) {
                case "/article" -> send(ex, 200, "text/html; charset=utf-8", ARTICLE);
                case "/plain" -> send(ex, 200, "text/plain", "just text\n  kept   as is");
                case "/long" -> send(ex, 200, "text/plain; charset=utf-8", "H".repeat(900) + "M".repeat(1000) + "T".repeat(300));
                case "/huge" -> send(ex, 200, "text/html", "<p>" + "x".repeat(200_000) + "</p>");
                case "/binary" -> send(ex, 200, "application/octet-stream", "\u0000\u0001\u0002");
                case "/text" -> send(ex, 200, "text/plain", "x".repeat(Integer.parseInt( // ?chars=N: N times x
                        ex.getRequestURI().getRawQuery().substring("chars=".length()))));
                case "/missing" -> send(ex, 404, "text/html", "<h1>Not here</h1>");
                case "/loop" -> redirect(ex, "/loop");
                case "/hop" -> redirect(ex, "/article");
                case "/to-metadata" -> redirect(ex, "http://169.254.169.254/latest/meta-data/");
                case "/to-localhost" -> redirect(ex, "http://localhost:" + port() + "/article");
                case "/chain" -> redirect(ex, "/chain-2");
                case "/chain-2" -> redirect(ex, "http://10.20.30.40/admin");
                case "/chain-to-mapped" -> redirect(ex, "http://[::ffff:7f00:1]:" + port() + "/article");
                case "/redirect" -> redirect(ex, ex.getRequestURI().getRawQuery().substring("to=".length()));
                case "/slow" -> slow(ex);
                case "/searxng/search" -> send(ex, 200, "application/json", """
                        {"query": "q", "results": [
                          {"title": "Ünïcode title", "url": "https://a.example/1", "content": "first hit"},
                          {"title": "Second", "url": "https://b.example/2", "content": "second hit"},
                          {"title": "Third", "url": "https://c.example/3", "content": "third hit"}]}""");
                case "/broken/search" -> send(ex, 503, "text/plain", "upstream down");
                case "/slowsearch/search" -> slow(ex);
                case "/tavily/search" -> send(ex, 200, "application/json", """
                        {"query": "q", "results": [
                          {"title": "T1", "url": "https://t.example/1", "content": "tavily hit", "score": 0.9}]}""");
                default -> send(ex, 404, "text/plain", "no fixture");
            }
        }
    }

    private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        var bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
    }

    private static void redirect(HttpExchange ex, String location) throws IOException {
        ex.getResponseHeaders().set("Location", location);
        ex.sendResponseHeaders(302, -1);
    }

    private void slow(HttpExchange ex) throws IOException {
        ex.getResponseHeaders().set("Content-Type", "text/html");
        ex.sendResponseHeaders(200, 0);
        ex.getResponseBody().write("<p>start".getBytes(StandardCharsets.UTF_8));
        ex.getResponseBody().flush();
        try {
            closing.await(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
    }
}
