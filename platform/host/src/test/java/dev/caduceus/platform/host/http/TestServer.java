package dev.caduceus.platform.host.http;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.json.Json;
import dev.caduceus.spi.http.HttpHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A real server on a random loopback port with routes registered by the test. */
final class TestServer implements AutoCloseable {
    static final String KEY = "test-key-0123456789abcdef";
    static final ObjectMapper MAPPER = Json.newMapper();
    /** The defaults of {@code server.body_min_rate} and {@code server.body_grace_seconds}. */
    static final BodyPace PACE = new BodyPace(256, Duration.ofSeconds(10));

    final HttpServer server;
    final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private TestServer(HttpServer server) {
        this.server = server;
    }

    static Builder builder() {
        return new Builder();
    }

    /** The admin key {@link #KEY}, and no other. */
    static final HttpSettings.KeyCheck KEYS =
            t -> KEY.equals(t) ? java.util.Optional.of(Authenticated.ADMIN) : java.util.Optional.empty();

    static HttpSettings settings(long maxBody, List<String> origins, int keepalive) {
        return settings(0, maxBody, origins, keepalive, Duration.ofSeconds(30), Duration.ofSeconds(20), 64);
    }

    static HttpSettings settings(int port, long maxBody, List<String> origins, int keepalive, Duration idleTimeout,
                                 Duration headerTimeout, int maxIdlePerClient) {
        return settings(port, maxBody, origins, keepalive, idleTimeout, headerTimeout, maxIdlePerClient, PACE);
    }

    static HttpSettings settings(int port, long maxBody, List<String> origins, int keepalive, Duration idleTimeout,
                                 Duration headerTimeout, int maxIdlePerClient, BodyPace pace) {
        return new HttpSettings("127.0.0.1", port, maxBody, origins, keepalive, Duration.ofSeconds(5),
                idleTimeout, headerTimeout, maxIdlePerClient, 15, pace);
    }

    int port() {
        return server.port();
    }

    URI uri(String pathAndQuery) {
        return server.uri().resolve(pathAndQuery);
    }

    HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10));
    }

    HttpRequest.Builder authed(String path) {
        return request(path).header("Authorization", "Bearer " + KEY);
    }

    HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> response) throws IOException {
        return MAPPER.readTree(response.body());
    }

    /** Sends raw bytes and returns everything the server answers until it closes or 5 s pass. */
    String raw(String request) throws IOException {
        return raw(request.getBytes(UTF_8));
    }

    String raw(byte[] request) throws IOException {
        return raw(request, Duration.ofSeconds(5));
    }

    /** {@link #raw(String)}, waiting up to {@code wait} for each part of the answer. */
    String raw(String request, Duration wait) throws IOException {
        return raw(request.getBytes(UTF_8), wait);
    }

    private String raw(byte[] request, Duration wait) throws IOException {
        try (var socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout((int) wait.toMillis());
            socket.getOutputStream().write(request);
            socket.getOutputStream().flush();
            return readAvailable(socket.getInputStream());
        }
    }

    /** Sends each request on one kept-alive connection, one after the other; returns the answers. */
    List<String> rawSequence(String... requests) throws IOException {
        var answers = new ArrayList<String>();
        try (var socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(5000);
            for (var request : requests) {
                socket.getOutputStream().write(request.getBytes(UTF_8));
                socket.getOutputStream().flush();
                answers.add(readAvailable(socket.getInputStream()));
            }
        }
        return answers;
    }

    private static String readAvailable(InputStream in) throws IOException {
        var out = new ByteArrayOutputStream();
        var buf = new byte[4096];
        try {
            for (int n; (n = in.read(buf)) != -1; ) {
                out.write(buf, 0, n);
                var text = out.toString(UTF_8);
                if (complete(text)) break;
            }
        } catch (java.net.SocketTimeoutException e) {
            // answer is whatever arrived
        }
        return out.toString(UTF_8);
    }

    /** A response with Content-Length whose body has fully arrived, or a chunked one with its last chunk. */
    private static boolean complete(String text) {
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) return false;
        var head = text.substring(0, end).toLowerCase();
        if (head.contains("transfer-encoding: chunked")) return text.endsWith("\r\n0\r\n\r\n");
        var m = java.util.regex.Pattern.compile("content-length: *(\\d+)").matcher(head);
        return m.find() && text.getBytes(UTF_8).length >= end + 4 + Integer.parseInt(m.group(1));
    }

    @Override
    public void close() {
        server.stop();
    }

    static final class Builder {
        private final List<ServedRoute> routes = new ArrayList<>();
        private long maxBody = 1_000_000;
        private List<String> origins = List.of();
        private int keepalive = 30;
        private Duration idleTimeout = Duration.ofSeconds(30);
        private Duration headerTimeout = Duration.ofSeconds(20);
        private int maxIdlePerClient = 64;
        private RequestRecorder recorder = RequestRecorder.none();
        private BodyPace pace = PACE;

        Builder route(String method, String template, HttpHandler handler) {
            routes.add(new ServedRoute(method, template, null, "test", "test-plugin", handler, MAPPER));
            return this;
        }

        /** An upload route, as a plugin's {@code Routes.upload} registers it: its own limit, its body streamed. */
        Builder upload(String template, long maxBodyBytes, HttpHandler handler) {
            routes.add(new ServedRoute("POST", template, null, "test", "test-plugin", handler, MAPPER, false, maxBodyBytes));
            return this;
        }

        /** A route that answers without a key, as a plugin's {@code Routes.publicGet} registers it. */
        Builder publicRoute(String method, String template, HttpHandler handler) {
            routes.add(new ServedRoute(method, template, null, "test", "test-plugin", handler, MAPPER, true));
            return this;
        }

        Builder recorder(RequestRecorder r) {
            recorder = r;
            return this;
        }

        Builder bodyPace(BodyPace p) {
            pace = p;
            return this;
        }

        Builder maxBody(long bytes) {
            maxBody = bytes;
            return this;
        }

        Builder origins(String... list) {
            origins = List.of(list);
            return this;
        }

        Builder keepalive(int seconds) {
            keepalive = seconds;
            return this;
        }

        Builder idleTimeout(Duration timeout) {
            idleTimeout = timeout;
            return this;
        }

        Builder headerTimeout(Duration timeout) {
            headerTimeout = timeout;
            return this;
        }

        Builder maxIdlePerClient(int cap) {
            maxIdlePerClient = cap;
            return this;
        }

        TestServer start() {
            var router = Router.of(routes);
            var settings = settings(0, maxBody, origins, keepalive, idleTimeout, headerTimeout, maxIdlePerClient, pace);
            return new TestServer(HttpServer.prepare(settings, MAPPER).start(KEYS, router, recorder));
        }
    }
}
