package dev.caduceus.platform.host.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Upload routes ({@code Routes.upload}) over real loopback: a body past the server's limit is streamed to the
 * handler up to the route's own (declared longer: 413 before the handler runs; chunked longer: 413 when the
 * stream reaches it), and {@code respond(…, InputStream)} streams an answer of any length byte-identical.
 * The server's limit still holds for its other routes.
 */
@Timeout(60)
class UploadTest {
    static final long SERVER_LIMIT = 64 * 1024;
    static final long UPLOAD_LIMIT = 8L * 1024 * 1024;

    static TestServer server(AtomicLong handled) {
        return TestServer.builder()
                .maxBody(SERVER_LIMIT)
                .upload("/v1/up", UPLOAD_LIMIT, ex -> {
                    handled.incrementAndGet();
                    var digest = MessageDigest.getInstance("SHA-256");
                    long total = 0;
                    try (InputStream in = ex.bodyStream()) {
                        var buffer = new byte[8192];
                        for (int n; (n = in.read(buffer)) > 0; ) {
                            digest.update(buffer, 0, n);
                            total += n;
                        }
                    }
                    ex.respond(200, JsonNodeFactory.instance.objectNode().put("bytes", total)
                            .put("sha256", HexFormat.of().formatHex(digest.digest())));
                })
                .route("POST", "/v1/json", ex -> ex.respond(200, ex.body()))
                .route("GET", "/v1/down/{size}", ex -> {
                    int size = Integer.parseInt(ex.pathParam("size"));
                    ex.respond(200, "application/octet-stream", size, new ByteArrayInputStream(bytes(size)));
                })
                .start();
    }

    static byte[] bytes(int size) {
        var out = new byte[size];
        new Random(size).nextBytes(out);
        return out;
    }

    static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    /**
     * The answer to a POST of which only the head is sent, declaring {@code length} bytes: a declared length past the
     * limit is answered before any body is sent (a client still sending a body when the server answers and closes
     * may see the reset instead of the answer, so the body is never sent).
     */
    static String headOnly(TestServer t, String path, long length) throws Exception {
        try (var socket = new java.net.Socket("127.0.0.1", t.server.port())) {
            socket.getOutputStream().write(("POST " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TestServer.KEY
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + length + "\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            socket.setSoTimeout(10_000);
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    @Test
    void anUploadPastTheServersLimitIsStreamedToTheHandlerWithOrWithoutALength() throws Exception {
        var handled = new AtomicLong();
        try (var t = server(handled)) {
            var body = bytes(3 * 1024 * 1024);
            var sized = t.send(t.authed("/v1/up").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());
            assertEquals(200, sized.statusCode(), sized.body());
            assertEquals(body.length, TestServer.json(sized).path("bytes").asLong());
            assertEquals(sha256(body), TestServer.json(sized).path("sha256").asText());

            var chunked = t.send(t.authed("/v1/up").POST(HttpRequest.BodyPublishers.ofInputStream(
                    () -> new ByteArrayInputStream(body))).build());
            assertEquals(200, chunked.statusCode(), chunked.body());
            assertEquals(sha256(body), TestServer.json(chunked).path("sha256").asText());

            var json = headOnly(t, "/v1/json", SERVER_LIMIT + 1);
            assertTrue(json.startsWith("HTTP/1.1 413"), "the server's limit still holds elsewhere: " + json);
        }
    }

    @Test
    void anUploadPastItsOwnLimitIs413DeclaredOrStreamed() throws Exception {
        var handled = new AtomicLong();
        try (var t = server(handled)) {
            var answer = headOnly(t, "/v1/up", UPLOAD_LIMIT + 1);
            assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
            assertTrue(answer.contains("\"code\":\"body_too_large\""), answer);
            assertEquals(0, handled.get(), "a declared length past the limit never reaches the handler");

            var body = bytes((int) UPLOAD_LIMIT + 1);

            var streamed = t.send(t.authed("/v1/up").POST(HttpRequest.BodyPublishers.ofInputStream(
                    () -> new ByteArrayInputStream(body))).build());
            assertEquals(413, streamed.statusCode(), streamed.body());
            assertEquals("body_too_large", TestServer.json(streamed).path("error").path("code").asText());
            assertEquals(1, handled.get());

            var unauthenticated = t.send(t.request("/v1/up").POST(HttpRequest.BodyPublishers.ofByteArray(bytes(10))).build());
            assertEquals(401, unauthenticated.statusCode(), "an upload needs the key like any route");
        }
    }

    @Test
    void aStreamedAnswerArrivesWholeWithItsLength() throws Exception {
        try (var t = server(new AtomicLong())) {
            int size = 5 * 1024 * 1024 + 7;
            var response = t.client.send(t.authed("/v1/down/" + size).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, response.statusCode());
            assertEquals(String.valueOf(size), response.headers().firstValue("Content-Length").orElse(""));
            assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("application/octet-stream"));
            assertArrayEquals(bytes(size), response.body());
        }
    }
}
