package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request log of the assembled server: one line per request on {@code dev.caduceus.requests},
 * for a success, a 4xx, a 5xx and an event stream (written when the stream has ended), with the
 * client's request id or a generated one (echoed as {@code X-Request-Id}), the key's name and the
 * run id; other lines logged while a request is handled carry its request id too.
 */
class RequestLogIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String LOGGER = "dev.caduceus.requests";

    @TempDir static Path home;
    static ScriptedUpstream upstream;

    @BeforeAll
    static void start() {
        upstream = ScriptedUpstream.start();
    }

    @AfterAll
    static void stop() {
        if (upstream != null) upstream.close();
    }

    static Map<String, String> headers(String... pairs) {
        var map = new HashMap<>(Caduceus.KEY_AUTH);
        map.put("Content-Type", "application/json");
        for (int i = 0; i < pairs.length; i += 2) map.put(pairs[i], pairs[i + 1]);
        return map;
    }

    static String chat(boolean stream) {
        return "{\"model\":\"hermes-agent\",\"stream\":" + stream + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    }

    /** The server's JSON log lines (every stderr line must be one) after it stopped. */
    static List<JsonNode> events(Caduceus server) throws Exception {
        server.terminate();
        server.awaitExit();
        var events = new ArrayList<JsonNode>();
        for (var line : server.stderr().lines().toList()) events.add(JSON.readTree(line));
        return events;
    }

    static JsonNode requestLine(List<JsonNode> events, String requestId) {
        return events.stream().filter(e -> e.path("logger").asText().equals(LOGGER)
                        && e.path("request_id").asText().equals(requestId)).findFirst()
                .orElseThrow(() -> new AssertionError("no request line for " + requestId + " in " + events));
    }

    @Test
    void oneJsonLinePerRequestWithItsIdsKeyStatusAndDuration(@TempDir Path dir) throws Exception {
        var env = new HashMap<>(Caduceus.upstreamEnv(upstream));
        env.put("CADUCEUS__LOGGING__FORMAT", "json");
        String generated;
        try (var server = Caduceus.serve(dir, env)) {
            upstream.enqueue(Turn.text("Hello.").usage(3, 2));
            var ok = server.send("POST", "/v1/chat/completions", chat(false), headers("X-Request-Id", "it-ok-1"));
            assertEquals(200, ok.statusCode(), ok.body());
            assertEquals("it-ok-1", ok.headers().firstValue("X-Request-Id").orElseThrow());

            var missing = server.get("/v1/runs/run_0123456789abcdef0123456789abcdef", headers());
            assertEquals(404, missing.statusCode());
            generated = missing.headers().firstValue("X-Request-Id").orElseThrow();

            upstream.enqueue(Turn.error(400, "the upstream refuses"));
            var failed = server.send("POST", "/v1/chat/completions", chat(false), headers("X-Request-Id", "it-5xx"));
            assertEquals(502, failed.statusCode(), failed.body());

            upstream.enqueue(Turn.textChunks("one ", "two ", "three"));
            var streamed = server.send("POST", "/v1/chat/completions", chat(true), headers("X-Request-Id", "it-sse"));
            assertEquals(200, streamed.statusCode());
            assertTrue(streamed.body().contains("[DONE]"), streamed.body());

            var keyless = server.get("/v1/models", Map.of("X-Request-Id", "it-401"));
            assertEquals(401, keyless.statusCode());

            var events = events(server);
            var ok1 = requestLine(events, "it-ok-1");
            assertEquals("POST", ok1.path("method").asText());
            assertEquals("/v1/chat/completions", ok1.path("route").asText());
            assertEquals(200, ok1.path("status").asInt());
            assertEquals("admin", ok1.path("key").asText());
            assertTrue(ok1.path("run_id").asText().startsWith("run_"), ok1.toString());
            assertTrue(ok1.path("duration_ms").isNumber() && ok1.path("bytes").asLong() > 0, ok1.toString());
            assertTrue(ok1.path("message").asText().startsWith("POST /v1/chat/completions 200 "), ok1.toString());
            assertFalse(ok1.toString().contains(Caduceus.TEST_KEY), "never the key");

            var notFound = requestLine(events, generated);
            assertEquals(404, notFound.path("status").asInt());
            assertEquals("/v1/runs/{run_id}", notFound.path("route").asText(), "the template, not the raw path");
            assertTrue(generated.matches("[0-9a-f-]{36}"), generated);

            assertEquals(502, requestLine(events, "it-5xx").path("status").asInt());

            var sse = requestLine(events, "it-sse");
            assertEquals(200, sse.path("status").asInt());
            assertTrue(sse.path("bytes").asLong() >= streamed.body().length(), "logged after the whole stream: " + sse);

            var rejected = requestLine(events, "it-401");
            assertEquals(401, rejected.path("status").asInt());
            assertEquals("-", rejected.path("key").asText());
            // the pipeline's own warning about it names the same request
            assertTrue(events.stream().anyMatch(e -> e.path("logger").asText().endsWith("AuthHandler")
                    && e.path("request_id").asText().equals("it-401")), events.toString());
        }
    }

    @Test
    void plainTextByDefaultWithTheIdsAtTheEndAndOffWhenAsked(@TempDir Path dir) throws Exception {
        try (var server = Caduceus.serve(dir.resolve("on"), Caduceus.KEY_ENV)) {
            assertEquals(404, server.get("/v1/runs/run_0123456789abcdef0123456789abcdef",
                    headers("X-Request-Id", "it-text")).statusCode());
            server.terminate();
            server.awaitExit();
            var line = server.stderr().lines().filter(l -> l.contains("GET /v1/runs/{run_id} 404 ")).findFirst()
                    .orElseThrow(() -> new AssertionError(server.stderr()));
            assertTrue(LoggingIT.TEXT.matcher(line).matches(), line);
            assertTrue(line.contains(" requests - GET /v1/runs/{run_id} 404 ") && line.contains("key=admin")
                    && line.endsWith("[request_id=it-text]"), line);
        }
        Files.createDirectories(dir.resolve("off"));
        Files.writeString(dir.resolve("off").resolve("config.yaml"), "logging:\n  requests: false\n");
        try (var server = Caduceus.serve(dir.resolve("off"), Caduceus.KEY_ENV)) {
            assertEquals(404, server.get("/v1/runs/run_0123456789abcdef0123456789abcdef", headers()).statusCode());
            server.terminate();
            server.awaitExit();
            assertTrue(server.stderr().lines().noneMatch(l -> l.contains(" requests - ")), server.stderr());
        }
    }
}
