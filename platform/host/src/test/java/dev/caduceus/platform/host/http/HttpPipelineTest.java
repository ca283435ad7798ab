package dev.caduceus.platform.host.http;

import static dev.caduceus.platform.host.http.TestServer.KEY;
import static dev.caduceus.platform.host.http.TestServer.json;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.http.ApiError;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Route match, errors as JSON, security headers and auth, against a real server. */
class HttpPipelineTest {
    static final String AUTH_BODY = "{\"error\":{\"message\":\"Invalid gateway API key (API_SERVER_KEY)\","
            + "\"type\":\"gateway_auth_error\",\"param\":null,\"code\":\"gateway_auth_failed\"}}";
    static final Map<String, String> SECURITY = DefaultHeadersHandler.SECURITY_HEADERS;

    static TestServer t;

    @BeforeAll
    static void start() {
        var ok = JsonNodeFactory.instance.objectNode().put("ok", true);
        t = TestServer.builder()
                .route("GET", "/health", ex -> ex.respond(200, ok))
                .route("GET", "/v1/health", ex -> ex.respond(200, ok))
                .route("GET", "/v1/runs", ex -> ex.respond(200, ok))
                .route("POST", "/v1/runs", ex -> ex.respond(202, ok))
                .route("GET", "/v1/runs/{run_id}", ex -> ex.respond(200,
                        JsonNodeFactory.instance.objectNode().put("run_id", ex.pathParam("run_id"))
                                .put("q", ex.query("q").orElse(null))
                                .put("all", String.join("|", ex.queryAll("s")))))
                .route("GET", "/v1/missing", ex -> {
                    throw ApiError.notFound("run_not_found", "Run not found: run_1").withHeader("X-Test", "yes").exception();
                })
                .route("POST", "/v1/boom", ex -> {
                    throw new IllegalStateException("secret internal detail");
                })
                .route("GET", "/v1/nothing", ex -> { })
                .publicRoute("GET", "/page/{file}", ex -> ex.respond(200, "text/plain",
                        (ex.pathParam("file") + " for " + ex.caller().name()).getBytes(UTF_8)))
                .route("POST", "/page/{file}", ex -> ex.respond(200, ok))
                .route("GET", "/v1/frame", ex -> {
                    ex.header("X-Frame-Options", "SAMEORIGIN");
                    ex.respond(200, ok);
                })
                .start();
    }

    @AfterAll
    static void stop() {
        t.close();
    }

    static void assertEnvelope(HttpResponse<String> r, int status, String type, String code, String message)
            throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        assertEquals("application/json; charset=utf-8", r.headers().firstValue("Content-Type").orElse(null));
        var error = json(r).get("error");
        assertEquals(4, error.size(), r.body());
        assertEquals(type, error.get("type").asText());
        assertEquals(code, error.get("code").asText());
        if (message != null) assertEquals(message, error.get("message").asText());
        assertTrue(error.get("param").isNull());
        assertSecurityHeaders(r);
    }

    static void assertSecurityHeaders(HttpResponse<?> r) {
        SECURITY.forEach((name, value) -> assertEquals(value, r.headers().firstValue(name).orElse(null), name));
        assertTrue(r.headers().firstValue("X-Request-Id").isPresent());
        assertFalse(r.headers().firstValue("Server").isPresent(), "Server header leaks");
    }

    @Test
    void unknownPathIsJson404WithSecurityHeaders() throws Exception {
        var r = t.send(t.authed("/v1/foo").GET().build());
        assertEnvelope(r, 404, "invalid_request_error", "not_found", "Unknown route: GET /v1/foo");
    }

    @Test
    void unknownPathIs404EvenWithoutKey() throws Exception {
        var r = t.send(t.request("/nope").GET().build());
        assertEnvelope(r, 404, "invalid_request_error", "not_found", "Unknown route: GET /nope");
    }

    @Test
    void wrongMethodIs405WithAllow() throws Exception {
        var r = t.send(t.authed("/v1/runs").PUT(BodyPublishers.ofString("{}")).build());
        assertEnvelope(r, 405, "invalid_request_error", "method_not_allowed", "Method PUT not allowed on /v1/runs");
        assertEquals("GET, POST", r.headers().firstValue("Allow").orElse(null));
    }

    @Test
    void missingKeyIs401WithExactBody() throws Exception {
        var r = t.send(t.request("/v1/runs").GET().build());
        assertEquals(401, r.statusCode());
        assertEquals(AUTH_BODY, r.body());
        assertFalse(r.headers().firstValue("WWW-Authenticate").isPresent());
        assertSecurityHeaders(r);
    }

    @Test
    void wrongKeyIs401() throws Exception {
        var r = t.send(t.request("/v1/runs").header("Authorization", "Bearer " + KEY + "x").GET().build());
        assertEquals(401, r.statusCode());
        assertEquals(AUTH_BODY, r.body());
    }

    @Test
    void lowerCaseBearerPrefixIs401() throws Exception {
        var r = t.send(t.request("/v1/runs").header("Authorization", "bearer " + KEY).GET().build());
        assertEquals(401, r.statusCode());
        assertEquals(AUTH_BODY, r.body());
    }

    @Test
    void lowerCaseBearerPrefixIs401AfterAValidRequestOnTheSameConnection() throws Exception {
        var answers = t.rawSequence(
                "GET /v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY + "\r\n\r\n",
                "GET /v1/runs HTTP/1.1\r\nHost: x\r\nauthorization: bearer " + KEY + "\r\n\r\n",
                "GET /v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY.toUpperCase() + "\r\n\r\n");
        assertTrue(answers.get(0).startsWith("HTTP/1.1 200"), answers.get(0));
        assertTrue(answers.get(1).startsWith("HTTP/1.1 401"), answers.get(1));
        assertTrue(answers.get(2).startsWith("HTTP/1.1 401"), answers.get(2));
    }

    @Test
    void keyInOtherHeaderIs401() throws Exception {
        var r = t.send(t.request("/v1/runs").header("X-Api-Key", KEY).GET().build());
        assertEquals(401, r.statusCode());
    }

    @Test
    void nonAsciiTokenIsClean401() throws Exception {
        var request = "GET /v1/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ключ-" + KEY
                + "\r\nConnection: close\r\n\r\n";
        var answer = t.raw(request.getBytes(UTF_8));
        assertTrue(answer.startsWith("HTTP/1.1 401"), answer);
        assertTrue(answer.endsWith(AUTH_BODY), answer);
    }

    @Test
    void rightKeyIs200AndTokenIsTrimmed() throws Exception {
        var r = t.send(t.request("/v1/runs").header("Authorization", "Bearer  " + KEY + " ").GET().build());
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("{\"ok\":true}", r.body());
        assertSecurityHeaders(r);
    }

    @Test
    void healthIsPublic() throws Exception {
        assertEquals(200, t.send(t.request("/health").GET().build()).statusCode());
        assertEquals(200, t.send(t.request("/v1/health").GET().build()).statusCode());
    }

    @Test
    void aPublicPluginRouteAnswersWithoutAKeyAndTheKeyedOnesStillNeedIt() throws Exception {
        var page = t.send(t.request("/page/app.js").GET().build());
        assertEquals(200, page.statusCode(), page.body());
        assertEquals("app.js for anonymous", page.body(), "the handler sees the anonymous caller");
        SECURITY.forEach((name, value) -> assertEquals(value, page.headers().firstValue(name).orElse(null), name));
        var wrongKey = t.send(t.request("/page/app.js").header("Authorization", "Bearer nope").GET().build());
        assertEquals(200, wrongKey.statusCode(), "a public route ignores whatever key is presented");

        var samePathOtherMethod = t.send(t.request("/page/app.js").POST(BodyPublishers.ofString("{}")).build());
        assertEquals(401, samePathOtherMethod.statusCode(), "only the GET was registered as public");
        assertEquals(AUTH_BODY, samePathOtherMethod.body());
        assertEquals(401, t.send(t.request("/v1/runs").GET().build()).statusCode());
        assertEquals(200, t.send(t.authed("/page/app.js").POST(BodyPublishers.ofString("{}")).build()).statusCode());
    }

    @Test
    void pathParamsAndQueryReachTheHandler() throws Exception {
        var r = t.send(t.authed("/v1/runs/run_abc?q=x%20y&s=a&s=b").GET().build());
        assertEquals("{\"run_id\":\"run_abc\",\"q\":\"x y\",\"all\":\"a|b\"}", r.body());
        var absent = t.send(t.authed("/v1/runs/run_abc").GET().build());
        assertEquals("{\"run_id\":\"run_abc\",\"q\":null,\"all\":\"\"}", absent.body(), "absent repeated parameter: empty");
    }

    @Test
    void httpStatusExceptionBecomesItsEnvelopeAndHeaders() throws Exception {
        var r = t.send(t.authed("/v1/missing").GET().build());
        assertEnvelope(r, 404, "invalid_request_error", "run_not_found", "Run not found: run_1");
        assertEquals("yes", r.headers().firstValue("X-Test").orElse(null));
    }

    @Test
    void runtimeExceptionIs500WithoutDetails() throws Exception {
        var r = t.send(t.authed("/v1/boom").POST(BodyPublishers.ofString("{}")).build());
        assertEnvelope(r, 500, "server_error", "internal_error", "Internal server error");
        assertFalse(r.body().contains("secret"), r.body());
        assertFalse(r.body().contains("Exception"), r.body());
        assertEquals("false", r.headers().firstValue("x-should-retry").orElse(null));
    }

    @Test
    void noAnswerIs204() throws Exception {
        var r = t.send(t.authed("/v1/nothing").GET().build());
        assertEquals(204, r.statusCode());
    }

    @Test
    void handlerSetHeaderWinsOverDefault() throws Exception {
        var r = t.send(t.authed("/v1/frame").GET().build());
        assertEquals(java.util.List.of("SAMEORIGIN"), r.headers().allValues("X-Frame-Options"));
    }

    @Test
    void invalidContentLengthIsJson400() throws Exception {
        var answer = t.raw("POST /v1/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + KEY
                + "\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}");
        assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
        assertTrue(answer.contains("\"code\":\"invalid_content_length\""), answer);
        assertTrue(answer.contains("\"message\":\"Invalid Content-Length header.\""), answer);
        assertTrue(answer.toLowerCase().contains("content-type: application/json"), answer);
        assertTrue(answer.contains("X-Content-Type-Options: nosniff"), answer);
        assertFalse(answer.contains("<html"), answer);
    }

    @Test
    void anAnswerGivenBeforeTheBodyArrivedSaysConnectionClose() throws Exception {
        // 10 of the 100 announced bytes: the handler answers without reading; the client must not reuse the connection
        var early = t.raw("POST /v1/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + KEY
                + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":\"1234");
        assertTrue(early.startsWith("HTTP/1.1 202"), early);
        assertTrue(early.toLowerCase().contains("connection: close"), early);
        var error = t.raw("POST /v1/boom HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + KEY
                + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":\"1234");
        assertTrue(error.startsWith("HTTP/1.1 500"), error);
        assertTrue(error.toLowerCase().contains("connection: close"), error);
    }

    @Test
    void anUnreadBodyThatHasArrivedKeepsTheConnection() throws Exception {
        var answers = t.rawSequence("POST /v1/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + KEY
                        + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
                "GET /v1/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + KEY + "\r\nConnection: close\r\n\r\n");
        assertTrue(answers.get(0).startsWith("HTTP/1.1 202"), answers.toString());
        assertTrue(answers.get(1).startsWith("HTTP/1.1 200"), "the same connection carried the next request: " + answers);
    }

    @Test
    void jettyErrorsForOddMethodsAreJsonToo() throws Exception {
        var answer = t.raw("GET /v1/%2e%2e/%2e%2e/etc HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertTrue(answer.startsWith("HTTP/1.1 4"), answer);
        assertFalse(answer.contains("<html"), answer);
        assertTrue(answer.contains("{\"error\":{"), answer);
    }
}
