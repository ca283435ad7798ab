package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One server, launched through bin/caduceus with a generated key and a CORS allowlist, probed over
 * real HTTP: the auth matrix, CORS, and the JSON error bodies of the pipeline.
 */
class ServerEndToEndIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String ORIGIN = "http://app.example";
    static final List<String> AUTHENTICATED = List.of("/v1/models", "/v1/capabilities", "/v1/toolsets", "/health/detailed");
    static final List<String> PUBLIC = List.of("/health", "/v1/health");

    @TempDir static Path home;
    static Caduceus server;

    @BeforeAll
    static void start() throws Exception {
        ThirdPartyPlugins.echo(home.resolve("plugins"));
        server = Caduceus.serve(home, Map.of("API_SERVER_CORS_ORIGINS", ORIGIN,
                "CADUCEUS__SERVER__MAX_BODY_BYTES", "1000"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
    }

    @Test
    void firstStartGeneratesAKeyPrintsItOnceWithACurlLineAndStoresOnlyItsHash() throws Exception {
        var keyFile = home.resolve("api_key");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)));
        var key = server.key();
        assertTrue(key.matches("[0-9a-f]{64}"), key);
        var stored = Files.readString(keyFile);
        assertTrue(stored.matches("sha256:[0-9a-f]{32}:[0-9a-f]{64}\n"), stored);
        assertFalse(stored.contains(key), "the key file holds the salted hash, not the key");
        var out = server.stdout();
        assertTrue(out.contains("Caduceus generated an API key and saved its hash to " + keyFile), out);
        assertTrue(out.contains("curl -H \"Authorization: Bearer " + key + "\" http://127.0.0.1:"), out);
        assertEquals(200, server.get("/v1/models", server.auth()).statusCode(), "the printed key authenticates");
        assertTrue(out.contains("endpoint-capabilities"), "start-up output names the loaded plugins:\n" + out);
    }

    @Test
    void authMatrixOnEveryRoute() throws Exception {
        for (var path : AUTHENTICATED) {
            var none = server.get(path, Map.of());
            assertEquals(401, none.statusCode(), path);
            assertEquals("gateway_auth_failed", error(none).path("code").asText(), path);
            assertEquals("gateway_auth_error", error(none).path("type").asText(), path);
            assertTrue(none.headers().firstValue("WWW-Authenticate").isEmpty(), path);

            var wrong = server.get(path, Map.of("Authorization", "Bearer not-the-right-key-at-all"));
            assertEquals(401, wrong.statusCode(), path);
            var lowerCase = server.get(path, Map.of("Authorization", "bearer " + server.key()));
            assertEquals(401, lowerCase.statusCode(), "the Bearer prefix is case-sensitive: " + path);

            var right = server.get(path, server.auth());
            assertEquals(200, right.statusCode(), path + " " + right.body());
            assertTrue(right.headers().firstValue("Content-Type").orElse("").startsWith("application/json"), path);
        }
        for (var path : PUBLIC) {
            var none = server.get(path, Map.of());
            assertEquals(200, none.statusCode(), path);
            assertEquals("ok", JSON.readTree(none.body()).path("status").asText());
        }
    }

    @Test
    void responsesCarrySecurityHeadersAndNoServerVersion() throws Exception {
        for (var response : List.of(server.get("/health", Map.of()), server.get("/v1/nope", Map.of()),
                server.get("/v1/models", Map.of()))) {
            var headers = response.headers();
            assertEquals("nosniff", headers.firstValue("X-Content-Type-Options").orElse(null));
            assertEquals("DENY", headers.firstValue("X-Frame-Options").orElse(null));
            assertEquals("no-referrer", headers.firstValue("Referrer-Policy").orElse(null));
            assertTrue(headers.firstValue("Content-Security-Policy").isPresent());
            assertTrue(headers.firstValue("Server").isEmpty(), "no Server header");
        }
    }

    @Test
    void corsAllowedOriginGetsHeadersDisallowedOriginGetsABare403() throws Exception {
        var allowed = server.get("/v1/models", with(server.auth(), "Origin", ORIGIN));
        assertEquals(200, allowed.statusCode());
        assertEquals(ORIGIN, allowed.headers().firstValue("Access-Control-Allow-Origin").orElse(null));
        assertEquals("Origin", allowed.headers().firstValue("Vary").orElse(null));
        assertTrue(allowed.headers().firstValue("Access-Control-Expose-Headers").orElse("").contains("X-Hermes-Session-Id"));

        var denied = server.get("/v1/models", with(server.auth(), "Origin", "http://evil.example"));
        assertEquals(403, denied.statusCode());
        assertEquals("", denied.body());
        assertTrue(denied.headers().firstValue("Access-Control-Allow-Origin").isEmpty());

        var preflight = server.send("OPTIONS", "/v1/models", null, Map.of("Origin", ORIGIN,
                "Access-Control-Request-Method", "PATCH", "Access-Control-Request-Headers", "authorization"));
        assertEquals(200, preflight.statusCode());
        assertEquals("GET, POST, PATCH, DELETE, OPTIONS",
                preflight.headers().firstValue("Access-Control-Allow-Methods").orElse(null));
        assertTrue(preflight.headers().firstValue("Access-Control-Allow-Headers").orElse("").contains("Authorization"));
        assertEquals("600", preflight.headers().firstValue("Access-Control-Max-Age").orElse(null));
        assertTrue(preflight.headers().firstValue("Access-Control-Allow-Credentials").isEmpty());

        var badPreflight = server.send("OPTIONS", "/v1/models", null, Map.of("Origin", "http://evil.example",
                "Access-Control-Request-Method", "GET"));
        assertEquals(403, badPreflight.statusCode());
    }

    @Test
    void notFoundMethodNotAllowedAndTooLargeAreJson() throws Exception {
        var notFound = server.get("/v1/nope", server.auth());
        assertEquals(404, notFound.statusCode());
        assertEnvelope(notFound.body(), "not_found", "Unknown route: GET /v1/nope");

        var wrongMethod = server.send("DELETE", "/v1/models", null, server.auth());
        assertEquals(405, wrongMethod.statusCode());
        assertEquals("GET", wrongMethod.headers().firstValue("Allow").orElse(null));
        assertEnvelope(wrongMethod.body(), "method_not_allowed", "Method DELETE not allowed on /v1/models");

        var tooLarge = server.send("POST", "/v1/echo", "{\"x\":\"" + "y".repeat(2000) + "\"}", server.auth());
        assertEquals(413, tooLarge.statusCode());
        assertEnvelope(tooLarge.body(), "body_too_large", "Request body too large.");

        var chunked = rawRequest("POST /v1/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + server.key()
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "7d0\r\n" + "y".repeat(2000) + "\r\n0\r\n\r\n");
        assertTrue(chunked.startsWith("HTTP/1.1 413"), chunked);
        assertTrue(chunked.contains("\"code\":\"body_too_large\""), chunked);
    }

    @Test
    void aDroppedInPluginServesPostsWithItsOwnTableAndBadJsonIsA400() throws Exception {
        var first = server.send("POST", "/v1/echo", "{\"hello\":[1,2]}", server.auth());
        assertEquals(200, first.statusCode(), first.body());
        var body = JSON.readTree(first.body());
        assertEquals("[1,2]", body.path("echo").path("hello").toString());
        assertTrue(body.path("count").asLong() >= 1);

        var malformed = server.send("POST", "/v1/echo", "{\"hello\":", server.auth());
        assertEquals(400, malformed.statusCode());
        assertEnvelope(malformed.body(), "invalid_json", "Invalid JSON in request body");
        var empty = server.send("POST", "/v1/echo", "", server.auth());
        assertEquals(400, empty.statusCode());
        var unauthenticated = server.send("POST", "/v1/echo", "{}", Map.of());
        assertEquals(401, unauthenticated.statusCode());
    }

    @Test
    void invalidContentLengthIsAJson400() throws Exception {
        var raw = rawRequest("POST /v1/models HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\nConnection: close\r\n\r\n");
        assertTrue(raw.startsWith("HTTP/1.1 400"), raw);
        assertTrue(raw.contains("\"error\":{"), raw);
        assertFalse(raw.toLowerCase().contains("<html"), raw);
    }

    @Test
    void capabilitiesListTheLoadedPluginsAndTheirRoutes() throws Exception {
        var caps = JSON.readTree(server.get("/v1/capabilities", server.auth()).body());
        assertEquals("hermes.api_server.capabilities", caps.path("object").asText());
        assertTrue(caps.path("features").path("cors").asBoolean());
        var ids = caps.path("plugins").findValuesAsText("id");
        assertTrue(ids.contains("endpoint-capabilities"), ids.toString());
        assertEquals("/v1/models", caps.path("endpoints").path("models").path("path").asText());
        assertEquals("/health", caps.path("endpoints").path("health").path("path").asText());
        var models = JSON.readTree(server.get("/v1/models", server.auth()).body());
        assertEquals("hermes-agent", models.path("data").get(0).path("id").asText());
    }

    @Test
    void agentRoutesAnswer503WhenNoModelIsConfigured() throws Exception {
        var response = server.send("POST", "/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", server.auth());
        assertEquals(503, response.statusCode(), response.body());
        var error = error(response);
        assertEquals("model_not_configured", error.path("code").asText());
        assertEquals("server_error", error.path("type").asText());
        assertTrue(error.path("message").asText().contains("OPENAI_BASE_URL"), error.toString());
        assertEquals("false", response.headers().firstValue("x-should-retry").orElse(null));
    }

    @Test
    void detailedHealthReportsEveryCoreCheckWithoutPaths() throws Exception {
        var health = JSON.readTree(server.get("/health/detailed", server.auth()).body());
        var checks = health.path("readiness").path("checks");
        for (var name : List.of("database", "config", "model", "disk", "plugins", "background_queues"))
            assertTrue(checks.has(name), name + " in " + checks);
        assertEquals("ok", checks.path("database").path("status").asText());
        assertFalse(checks.path("model").path("configured").asBoolean(), "no upstream configured in this test");
        assertEquals("degraded", health.path("status").asText(), "an unconfigured model degrades readiness");
        assertFalse(health.toString().contains(home.toString()), "no paths in health output");
        assertEquals("running", health.path("gateway_state").asText());
    }

    private static JsonNode error(java.net.http.HttpResponse<String> response) throws IOException {
        return JSON.readTree(response.body()).path("error");
    }

    private static void assertEnvelope(String body, String code, String message) throws IOException {
        var error = JSON.readTree(body).path("error");
        assertEquals(4, error.size(), body);
        assertEquals(code, error.path("code").asText(), body);
        assertEquals(message, error.path("message").asText(), body);
        assertTrue(error.has("param") && error.path("param").isNull(), body);
        assertTrue(error.path("type").isTextual(), body);
    }

    private static Map<String, String> with(Map<String, String> headers, String name, String value) {
        var copy = new java.util.LinkedHashMap<>(headers);
        copy.put(name, value);
        return copy;
    }

    private static String rawRequest(String request) throws Exception {
        var uri = server.awaitListening();
        try (var socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            var out = new ByteArrayOutputStream();
            try {
                socket.getInputStream().transferTo(out);
            } catch (java.net.SocketTimeoutException e) {
                // enough was read
            }
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
