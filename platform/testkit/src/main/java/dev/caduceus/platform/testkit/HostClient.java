package dev.caduceus.platform.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * HTTP to a {@link TestHost} over loopback, presenting its API key unless told otherwise. Headers are
 * given as name/value pairs ({@code post("/v1/runs", body, "Idempotency-Key", "k1")}); a JSON body is
 * sent with {@code Content-Type: application/json}. Immutable and thread-safe: {@link #withKey} and
 * {@link #withoutKey} return new clients over the same connection pool.
 */
public final class HostClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** One answer, its body read whole. */
    public record Response(int status, HttpHeaders headers, String body) {
        public Optional<String> header(String name) {
            return headers.firstValue(name);
        }

        /** The body parsed as JSON; fails the test when it is not JSON. */
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON (" + status + "): " + body, e);
            }
        }

        /** {@code error} of a contract error body, or a missing node. */
        public JsonNode error() {
            return json().path("error");
        }
    }

    private final HttpClient http;
    private final URI base;
    private final String key;

    HostClient(HttpClient http, URI base, String key) {
        this.http = http;
        this.base = base;
        this.key = key;
    }

    /** The same host, presenting {@code other} as the bearer key. */
    public HostClient withKey(String other) {
        return new HostClient(http, base, other);
    }

    /** The same host, presenting no key. */
    public HostClient withoutKey() {
        return new HostClient(http, base, null);
    }

    public Response get(String path, String... headers) {
        return send("GET", path, null, headers);
    }

    public Response post(String path, String body, String... headers) {
        return send("POST", path, body, headers);
    }

    public Response delete(String path, String... headers) {
        return send("DELETE", path, null, headers);
    }

    /** Any method; {@code body} null sends none. */
    public Response send(String method, String path, String body, String... headers) {
        var request = request(method, path, body, headers);
        try {
            var response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.headers(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + method + " " + path, e);
        }
    }

    /**
     * Sends the request byte for byte over a plain socket ({@code Connection: close}), for header values
     * {@link HttpClient} refuses to send (control characters, DEL, non-ASCII as ISO-8859-1 bytes).
     * Header values go out as ISO-8859-1; the body as UTF-8.
     */
    public Response raw(String method, String path, String body, String... headers) {
        if (headers.length % 2 != 0) throw new IllegalArgumentException("headers come in name/value pairs");
        var bytes = body == null ? new byte[0] : body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        var head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort()
                + "\r\nConnection: close\r\nContent-Length: " + bytes.length + "\r\n");
        if (key != null) head.append("Authorization: Bearer ").append(key).append("\r\n");
        if (body != null) head.append("Content-Type: application/json\r\n");
        for (int i = 0; i < headers.length; i += 2) head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        head.append("\r\n");
        try (var socket = new java.net.Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout((int) TIMEOUT.toMillis());
            var out = socket.getOutputStream();
            out.write(head.toString().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            out.write(bytes);
            out.flush();
            return RawResponse.parse(socket.getInputStream().readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " (raw) failed", e);
        }
    }

    /** Opens {@code GET path} as an event stream; read it frame by frame, close it to hang up. */
    public SseStream sse(String path, String... headers) {
        return openStream("GET", path, null, headers);
    }

    /** Opens {@code POST path} (a streaming chat or responses call) as an event stream. */
    public SseStream postSse(String path, String body, String... headers) {
        return openStream("POST", path, body, headers);
    }

    private SseStream openStream(String method, String path, String body, String... headers) {
        var request = request(method, path, body, headers);
        try {
            return new SseStream(http.send(request, HttpResponse.BodyHandlers.ofInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + method + " " + path, e);
        }
    }

    private HttpRequest request(String method, String path, String body, String... headers) {
        if (headers.length % 2 != 0) throw new IllegalArgumentException("headers come in name/value pairs");
        var all = new LinkedHashMap<String, String>();
        if (key != null) all.put("Authorization", "Bearer " + key);
        if (body != null) all.put("Content-Type", "application/json");
        for (int i = 0; i < headers.length; i += 2) all.put(headers[i], headers[i + 1]);
        var builder = HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        for (Map.Entry<String, String> h : all.entrySet()) builder.header(h.getKey(), h.getValue());
        return builder.build();
    }
}
