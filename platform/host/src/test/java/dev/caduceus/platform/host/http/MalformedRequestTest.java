package dev.caduceus.platform.host.http;

import static dev.caduceus.platform.host.http.TestServer.KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest.BodyPublishers;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Requests that Jetty rejects before (or while) a handler reads them, over raw sockets: each fault
 * gets its own code in the contract's JSON envelope, never {@code invalid_json} (no JSON was parsed).
 */
class MalformedRequestTest {
    static final AtomicInteger handled = new AtomicInteger();
    static TestServer t;

    @BeforeAll
    static void start() {
        var ok = JsonNodeFactory.instance.objectNode().put("ok", true);
        t = TestServer.builder()
                .maxBody(64)
                .route("POST", "/v1/runs", ex -> {
                    handled.incrementAndGet();
                    ex.body();
                    ex.respond(202, ok);
                })
                .route("GET", "/v1/runs/{run_id}", ex -> {
                    handled.incrementAndGet();
                    ex.respond(200, ok);
                })
                .start();
    }

    @AfterAll
    static void stop() {
        t.close();
    }

    /** The answer's status line, and its body as the error envelope, with the default headers. */
    static JsonNode assertError(String answer, int status, String code) throws Exception {
        assertTrue(answer.startsWith("HTTP/1.1 " + status + " "), answer);
        var head = answer.substring(0, answer.indexOf("\r\n\r\n")).toLowerCase(Locale.ROOT);
        assertTrue(head.contains("content-type: application/json; charset=utf-8"), answer);
        assertTrue(head.contains("x-content-type-options: nosniff"), answer);
        assertFalse(answer.contains("<html"), answer);
        var error = TestServer.MAPPER.readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4)).get("error");
        assertEquals(4, error.size(), answer);
        assertEquals(code, error.get("code").asText(), answer);
        assertEquals("invalid_request_error", error.get("type").asText(), answer);
        assertTrue(error.get("param").isNull(), answer);
        assertFalse(error.get("message").asText().isBlank(), answer);
        return error;
    }

    static String post(String extraHeaders, String body) {
        return "POST /v1/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + KEY + "\r\n" + extraHeaders
                + "Connection: close\r\n\r\n" + body;
    }

    static String get(String target, String extraHeaders) {
        return "GET " + target + " HTTP/1.1\r\n" + extraHeaders + "Authorization: Bearer " + KEY
                + "\r\nConnection: close\r\n\r\n";
    }

    @Test
    void missingHostIs400InvalidHost() throws Exception {
        var error = assertError(t.raw(get("/v1/runs/run_1", "")), 400, "invalid_host");
        assertEquals("Missing Host header.", error.get("message").asText());
    }

    @Test
    void duplicateOrMalformedHostIs400InvalidHost() throws Exception {
        assertError(t.raw(get("/v1/runs/run_1", "Host: a\r\nHost: b\r\n")), 400, "invalid_host");
        assertError(t.raw(get("/v1/runs/run_1", "Host: bad host\r\n")), 400, "invalid_host");
        assertError(t.raw(get("/v1/runs/run_1", "Host: x:99999\r\n")), 400, "invalid_host");
    }

    @Test
    void crInAHeaderValueIs400InvalidHeader() throws Exception {
        var error = assertError(t.raw(get("/v1/runs/run_1", "Host: x\r\nX-A: a\rb\r\n")), 400, "invalid_header");
        assertEquals("Malformed request header: CR without LF.", error.get("message").asText());
    }

    @Test
    void otherMalformedHeadersAre400InvalidHeader() throws Exception {
        assertError(t.raw(get("/v1/runs/run_1", "Host: x\r\nBad Name: y\r\n")), 400, "invalid_header");
        assertError(t.raw(get("/v1/runs/run_1", "Host: x\r\nX-A: a\r\n folded\r\n")), 400, "invalid_header");
        assertError(t.raw(get("/v1/runs/run_1", "Host: x\r\nX-A: a\u0000b\r\n")), 400, "invalid_header");
    }

    @Test
    void transferEncodingGzipIs400InvalidTransferEncoding() throws Exception {
        handled.set(0);
        var error = assertError(t.raw(post("Transfer-Encoding: gzip\r\n", "{}")), 400, "invalid_transfer_encoding");
        assertTrue(error.get("message").asText().contains("only chunked"), error.toString());
        assertError(t.raw(post("Transfer-Encoding: chunked, chunked\r\n", "2\r\n{}\r\n0\r\n\r\n")), 400,
                "invalid_transfer_encoding");
        assertError(t.raw(post("Transfer-Encoding: chunked\r\nContent-Length: 2\r\n", "2\r\n{}\r\n0\r\n\r\n")), 400,
                "invalid_transfer_encoding");
        assertEquals(0, handled.get());
    }

    @Test
    void aCodingBeforeChunkedIs501UnsupportedTransferEncoding() throws Exception {
        handled.set(0);
        var answer = t.raw(post("Transfer-Encoding: gzip, chunked\r\n", "2\r\n{}\r\n0\r\n\r\n"));
        var error = assertError(answer, 501, "unsupported_transfer_encoding");
        assertEquals("Unsupported Transfer-Encoding: only chunked is supported.", error.get("message").asText());
        assertTrue(answer.toLowerCase(Locale.ROOT).contains("connection: close"), answer);
        var twoFields = t.raw(post("Transfer-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n", "2\r\n{}\r\n0\r\n\r\n"));
        assertError(twoFields, 501, "unsupported_transfer_encoding");
        assertEquals(0, handled.get(), "the still-encoded body never reaches a handler");
    }

    @Test
    void aTwentyDigitContentLengthIs400InvalidContentLength() throws Exception {
        var error = assertError(t.raw(post("Content-Length: 12345678901234567890\r\n", "{}")), 400,
                "invalid_content_length");
        assertEquals("Invalid Content-Length header.", error.get("message").asText());
        assertError(t.raw(post("Content-Length: 2\r\nContent-Length: 3\r\n", "{}")), 400, "invalid_content_length");
        assertError(t.raw(post("Content-Length: -5\r\n", "{}")), 400, "invalid_content_length");
    }

    @Test
    void aNulOrAmbiguousPathIs400InvalidPath() throws Exception {
        handled.set(0);
        for (var target : new String[] {"/v1/runs/%00", "/v1/runs/a%00b", "/v1/runs/a%2Fb", "/v1/runs/%2e%2e",
                "/v1/runs/%zz", "/v1/runs/%C0%AF", "/v1/runs/a%5Cb", "//v1/runs/x"}) {
            var error = assertError(t.raw(get(target, "Host: x\r\n")), 400, "invalid_path");
            assertTrue(error.get("message").asText().startsWith("Invalid request path"), target);
        }
        assertEquals(0, handled.get());
    }

    @Test
    void aMalformedChunkIs400InvalidBodyNotInvalidJson() throws Exception {
        assertError(t.raw(post("Transfer-Encoding: chunked\r\n", "zz\r\n{}\r\n0\r\n\r\n")), 400, "invalid_body");
        assertError(t.raw(post("Transfer-Encoding: chunked\r\n", "FFFFFFFFFFFFFFFFFFFFFF\r\n{}\r\n0\r\n\r\n")), 400,
                "invalid_body");
    }

    @Test
    void aWellFormedRequestStillPasses() throws Exception {
        var answer = t.raw(post("Transfer-Encoding: chunked\r\n", "2\r\n{}\r\n0\r\n\r\n"));
        assertTrue(answer.startsWith("HTTP/1.1 202"), answer);
        var upper = t.raw(post("Transfer-Encoding: Chunked\r\n", "2\r\n{}\r\n0\r\n\r\n"));
        assertTrue(upper.startsWith("HTTP/1.1 202"), upper);
    }

    /**
     * BodyReader used to close Jetty's input stream mid-body; that failed the request, and the failure
     * often beat the 413 to the response as a 500. Repeated because it was a race.
     */
    @Test
    void aChunkedBodyOverTheLimitIsAlways413() throws Exception {
        var body = new StringBuilder();
        for (int i = 0; i < 100; i++) body.append("a\r\n0123456789\r\n");
        body.append("0\r\n\r\n");
        for (int i = 0; i < 30; i++) {
            var answer = t.raw(post("Transfer-Encoding: chunked\r\n", body.toString()));
            var error = assertError(answer, 413, "body_too_large");
            assertEquals("Request body too large.", error.get("message").asText());
            assertTrue(answer.toLowerCase(Locale.ROOT).contains("connection: close"), answer);
        }
        var bytes = ("{\"x\":\"" + "a".repeat(20_000) + "\"}").getBytes();
        int answered = 0;
        for (int i = 0; i < 10; i++) {
            java.net.http.HttpResponse<String> r;
            try {
                r = t.send(t.authed("/v1/runs").POST(BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes)))
                        .build());
            } catch (java.io.IOException e) {
                // the server may close before this client has sent the whole body (HTTP allows it; on a busy
                // machine the reset can reach the client before the 413 does): not a 500, so not the bug
                continue;
            }
            answered++;
            assertEquals(413, r.statusCode(), r.body());
            assertEquals("body_too_large", TestServer.json(r).path("error").path("code").asText());
        }
        assertTrue(answered > 0, "no streamed upload got an answer");
    }
}
