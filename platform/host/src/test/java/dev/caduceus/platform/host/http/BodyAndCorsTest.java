package dev.caduceus.platform.host.http;

import static dev.caduceus.platform.host.http.HttpPipelineTest.assertEnvelope;
import static dev.caduceus.platform.host.http.HttpPipelineTest.assertSecurityHeaders;
import static dev.caduceus.platform.host.http.TestServer.KEY;
import static dev.caduceus.platform.host.http.TestServer.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Body limit, JSON parsing and binding, and the origin gate. */
class BodyAndCorsTest {
    record Payload(String name, int count) {}

    static final AtomicInteger handled = new AtomicInteger();

    static TestServer server(String... origins) {
        return TestServer.builder()
                .maxBody(64)
                .origins(origins)
                .route("POST", "/v1/echo", ex -> {
                    handled.incrementAndGet();
                    ex.respond(200, ex.body());
                })
                .route("POST", "/v1/bind", ex -> {
                    var p = ex.bodyAs(Payload.class);
                    ex.respond(200, TestServer.MAPPER.createObjectNode().put("name", p.name()).put("count", p.count()));
                })
                .route("GET", "/v1/runs", ex -> ex.respond(200, TestServer.MAPPER.createObjectNode().put("ok", true)))
                .route("GET", "/health", ex -> ex.respond(200, TestServer.MAPPER.createObjectNode()))
                .start();
    }

    @Test
    void contentLengthOverLimitIs413BeforeAuth() throws Exception {
        try (var t = server()) {
            var r = t.send(t.request("/v1/echo").POST(BodyPublishers.ofString("{\"x\":\"" + "a".repeat(100) + "\"}")).build());
            assertEnvelope(r, 413, "invalid_request_error", "body_too_large", "Request body too large.");
        }
    }

    @Test
    void chunkedBodyOverLimitIs413() throws Exception {
        try (var t = server()) {
            var bytes = ("{\"x\":\"" + "a".repeat(200) + "\"}").getBytes();
            var r = t.send(t.authed("/v1/echo").header("Content-Type", "application/json")
                    .POST(BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))).build());
            assertEnvelope(r, 413, "invalid_request_error", "body_too_large", "Request body too large.");
        }
    }

    @Test
    void chunkedBodyWithinLimitIsRead() throws Exception {
        try (var t = server()) {
            var bytes = "{\"x\":1}".getBytes();
            var r = t.send(t.authed("/v1/echo").POST(BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))).build());
            assertEquals(200, r.statusCode(), r.body());
            assertEquals("{\"x\":1}", r.body());
        }
    }

    @Test
    void malformedOrEmptyJsonIs400() throws Exception {
        try (var t = server()) {
            for (var body : new String[] {"{\"x\":", "", "{} trailing", "   "}) {
                var r = t.send(t.authed("/v1/echo").POST(BodyPublishers.ofString(body)).build());
                assertEnvelope(r, 400, "invalid_request_error", "invalid_json", "Invalid JSON in request body");
            }
        }
    }

    @Test
    void bindingErrorNamesTheField() throws Exception {
        try (var t = server()) {
            var r = t.send(t.authed("/v1/bind").POST(BodyPublishers.ofString("{\"name\":\"a\",\"count\":{}}")).build());
            assertEquals(400, r.statusCode(), r.body());
            var error = json(r).get("error");
            assertEquals("count", error.get("param").asText());
            assertEquals("invalid_request_error", error.get("type").asText());
            assertFalse(error.get("message").asText().contains("java."), r.body());
            var ok = t.send(t.authed("/v1/bind").POST(BodyPublishers.ofString("{\"name\":\"a\",\"count\":3,\"extra\":1}")).build());
            assertEquals("{\"name\":\"a\",\"count\":3}", ok.body());
        }
    }

    static void assertCorsHeaders(HttpResponse<?> r, String origin) {
        assertEquals(origin, r.headers().firstValue("Access-Control-Allow-Origin").orElse(null));
        assertEquals("GET, POST, PATCH, DELETE, OPTIONS", r.headers().firstValue("Access-Control-Allow-Methods").orElse(null));
        assertEquals(CorsPolicy.ALLOW_HEADERS, r.headers().firstValue("Access-Control-Allow-Headers").orElse(null));
        assertEquals(CorsPolicy.EXPOSE_HEADERS, r.headers().firstValue("Access-Control-Expose-Headers").orElse(null));
        assertEquals("600", r.headers().firstValue("Access-Control-Max-Age").orElse(null));
        assertFalse(r.headers().firstValue("Access-Control-Allow-Credentials").isPresent());
        if ("*".equals(origin)) assertFalse(r.headers().firstValue("Vary").isPresent());
        else assertEquals("Origin", r.headers().firstValue("Vary").orElse(null));
    }

    @Test
    void allowedOriginGetsCorsHeadersOnSuccessAndErrors() throws Exception {
        try (var t = server("https://app.example")) {
            var ok = t.send(t.authed("/v1/runs").header("Origin", "https://app.example").GET().build());
            assertEquals(200, ok.statusCode());
            assertCorsHeaders(ok, "https://app.example");
            var unauthorized = t.send(t.request("/v1/runs").header("Origin", "https://app.example").GET().build());
            assertEquals(401, unauthorized.statusCode());
            assertCorsHeaders(unauthorized, "https://app.example");
            var notFound = t.send(t.request("/v1/nope").header("Origin", "https://app.example").GET().build());
            assertEquals(404, notFound.statusCode());
            assertCorsHeaders(notFound, "https://app.example");
        }
    }

    @Test
    void disallowedOriginIs403EmptyEvenWithKeyAndBeforeAuth() throws Exception {
        try (var t = server("https://app.example")) {
            handled.set(0);
            var withKey = t.send(t.authed("/v1/echo").header("Origin", "https://evil.example")
                    .POST(BodyPublishers.ofString("{}")).build());
            assertEquals(403, withKey.statusCode());
            assertEquals("", withKey.body());
            assertEquals(0, handled.get());
            assertFalse(withKey.headers().firstValue("Access-Control-Allow-Origin").isPresent());
            assertSecurityHeaders(withKey);
            var withoutKey = t.send(t.request("/v1/runs").header("Origin", "https://evil.example").GET().build());
            assertEquals(403, withoutKey.statusCode());
            assertEquals("", withoutKey.body());
            var publicRoute = t.send(t.request("/health").header("Origin", "https://evil.example").GET().build());
            assertEquals(403, publicRoute.statusCode());
        }
    }

    @Test
    void anOriginMustEqualAnEntryAsSent() throws Exception {
        try (var t = server("  HTTP://Allowed.example/ ")) { // a sloppy entry is normalized, the request's Origin is not
            var exact = t.send(t.authed("/v1/runs").header("Origin", "http://allowed.example").GET().build());
            assertEquals(200, exact.statusCode());
            assertCorsHeaders(exact, "http://allowed.example");
            for (var origin : new String[] {"http://allowed.example/", "http://allowed.example//",
                    "HTTP://ALLOWED.EXAMPLE", "http://allowed.example:80", "http://allowed.example.evil", "null"}) {
                var r = t.send(t.authed("/v1/runs").header("Origin", origin).GET().build());
                assertEquals(403, r.statusCode(), origin);
                assertEquals("", r.body(), origin);
                assertFalse(r.headers().firstValue("Access-Control-Allow-Origin").isPresent(), origin);
                var preflight = t.send(t.request("/v1/runs").header("Origin", origin)
                        .method("OPTIONS", BodyPublishers.noBody()).build());
                assertEquals(403, preflight.statusCode(), origin);
            }
            var twice = t.raw("GET /v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                    + "\r\nOrigin: http://allowed.example\r\nOrigin: http://evil.example\r\nConnection: close\r\n\r\n");
            assertTrue(twice.startsWith("HTTP/1.1 403"), twice);
            assertFalse(twice.contains("Access-Control-Allow-Origin"), twice);
        }
    }

    @Test
    void anyOriginIs403WithoutAllowlist() throws Exception {
        try (var t = server()) {
            var r = t.send(t.authed("/v1/runs").header("Origin", "http://localhost:3000").GET().build());
            assertEquals(403, r.statusCode());
            assertEquals("", r.body());
            var noOrigin = t.send(t.authed("/v1/runs").GET().build());
            assertEquals(200, noOrigin.statusCode());
        }
    }

    @Test
    void aSameOriginRequestPassesWithoutAllowlistAndGetsNoCorsHeaders() throws Exception {
        try (var t = server()) {
            var self = "http://127.0.0.1:" + t.port();
            var post = t.send(t.authed("/v1/echo").header("Origin", self).POST(BodyPublishers.ofString("{\"a\":1}")).build());
            assertEquals(200, post.statusCode(), "a page this server served may POST back to it");
            assertFalse(post.headers().firstValue("Access-Control-Allow-Origin").isPresent());
            var unauthorized = t.send(t.request("/v1/runs").header("Origin", self).GET().build());
            assertEquals(401, unauthorized.statusCode(), "same origin is no credential: the key is still needed");
            for (var other : new String[] {"http://localhost:" + t.port(), "http://127.0.0.1:" + (t.port() + 1),
                    "http://127.0.0.1", "null", "127.0.0.1:" + t.port()}) {
                var r = t.send(t.authed("/v1/runs").header("Origin", other).GET().build());
                assertEquals(403, r.statusCode(), other);
            }
            var spoofedHost = t.raw("GET /v1/runs HTTP/1.1\r\nHost: evil.example\r\nOrigin: http://127.0.0.1:" + t.port()
                    + "\r\nAuthorization: Bearer " + KEY + "\r\nConnection: close\r\n\r\n");
            assertTrue(spoofedHost.startsWith("HTTP/1.1 403"), spoofedHost);
            var preflight = t.send(t.request("/v1/echo").header("Origin", self)
                    .header("Access-Control-Request-Method", "POST").method("OPTIONS", BodyPublishers.noBody()).build());
            assertEquals(403, preflight.statusCode(), "browsers never preflight a same-origin request");
        }
    }

    @Test
    void preflightFromAllowedOriginIs200WithHeadersAndNoAuth() throws Exception {
        try (var t = server("https://app.example")) {
            var r = t.send(t.request("/v1/echo").header("Origin", "https://app.example")
                    .header("Access-Control-Request-Method", "POST")
                    .method("OPTIONS", BodyPublishers.noBody()).build());
            assertEquals(200, r.statusCode());
            assertEquals("", r.body());
            assertCorsHeaders(r, "https://app.example");
            assertSecurityHeaders(r);
        }
    }

    @Test
    void otherPreflightsAre403() throws Exception {
        try (var t = server("https://app.example")) {
            var noOrigin = t.send(t.authed("/v1/echo").method("OPTIONS", BodyPublishers.noBody()).build());
            assertEquals(403, noOrigin.statusCode());
            assertEquals("", noOrigin.body());
            var badOrigin = t.send(t.request("/v1/echo").header("Origin", "https://evil.example")
                    .method("OPTIONS", BodyPublishers.noBody()).build());
            assertEquals(403, badOrigin.statusCode());
            assertEquals("", badOrigin.body());
            var unknownPath = t.send(t.request("/v1/unknown").header("Origin", "https://app.example")
                    .method("OPTIONS", BodyPublishers.noBody()).build());
            assertEquals(404, unknownPath.statusCode());
        }
    }

    @Test
    void wildcardAllowsAnyOriginWithStarAndNoVary() throws Exception {
        try (var t = server("*")) {
            var r = t.send(t.request("/v1/runs").header("Authorization", "Bearer " + KEY)
                    .header("Origin", "https://anything.example").GET().build());
            assertEquals(200, r.statusCode());
            assertCorsHeaders(r, "*");
            var preflight = t.send(t.request("/v1/runs").header("Origin", "https://other.example")
                    .method("OPTIONS", BodyPublishers.noBody()).build());
            assertEquals(200, preflight.statusCode());
            assertCorsHeaders(preflight, "*");
        }
    }

    @Test
    void portInUseIsAClearException() {
        try (var t = server()) {
            var settings = TestServer.settings(t.server.port(), 10, java.util.List.of(), 30,
                    java.time.Duration.ofSeconds(30), java.time.Duration.ofSeconds(20), 64);
            var e = org.junit.jupiter.api.Assertions.assertThrows(PortInUseException.class,
                    () -> HttpServer.start(settings, TestServer.KEYS, Router.of(java.util.List.of()), TestServer.MAPPER));
            assertEquals("Port " + t.server.port() + " is already in use", e.getMessage());
            assertTrue(e.port() > 0);
        }
    }
}
