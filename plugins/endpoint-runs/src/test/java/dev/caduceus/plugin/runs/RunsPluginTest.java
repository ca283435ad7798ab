package dev.caduceus.plugin.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.TestHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The family as the real host serves it: its routes as {@code caduceus plugins} lists them, its features
 * as {@code /v1/capabilities} shows them (endpoint-capabilities beside it).
 */
class RunsPluginTest {
    static final ObjectMapper JSON = new ObjectMapper();

    private static TestHost host(String... env) {
        var builder = TestHost.builder().plugins("endpoint-runs", "endpoint-capabilities");
        for (int i = 0; i + 1 < env.length; i += 2) builder.env(env[i], env[i + 1]);
        return builder.start();
    }

    /** {@code /v1/capabilities}' features. */
    private static JsonNode features(TestHost host) {
        var answer = host.http().get("/v1/capabilities");
        assertEquals(200, answer.status(), answer.body());
        return answer.json().path("features");
    }

    /** Every field of {@code expected} (JSON) has the same value in {@code features}. */
    private static void assertFeatures(String expected, JsonNode features) throws Exception {
        JSON.readTree(expected).fields().forEachRemaining(f ->
                assertEquals(f.getValue(), features.get(f.getKey()), f.getKey() + " in " + features));
    }

    @Test
    void contributesOneFamilyWithEveryRouteOfSection9NamedForCapabilities() {
        try (var host = host()) {
            assertEquals(Map.of(
                    "POST /v1/runs", "runs",
                    "GET /v1/runs", "run_list",
                    "GET /v1/runs/{run_id}", "run_status",
                    "GET /v1/runs/{run_id}/events", "run_events",
                    "POST /v1/runs/{run_id}/approval", "run_approval",
                    "POST /v1/runs/{run_id}/steer", "run_steer",
                    "POST /v1/runs/{run_id}/stop", "run_stop",
                    "POST /v1/runs/{run_id}/tool_outputs", "run_tool_outputs",
                    "GET /v1/runs/{run_id}/artifacts", "run_artifacts"), host.routesOf("endpoint-runs"), "all under /v1/runs");
        }
    }

    @Test
    void advertisesTheRunsFeaturesAndDurableIdempotency() throws Exception {
        try (var host = host("CADUCEUS__RUNS__IDEMPOTENCY_RETENTION_HOURS", "48")) {
            assertFeatures("{\"run_submission\":true,\"run_status\":true,\"run_events_sse\":true,\"run_stop\":true,"
                    + "\"run_approval_response\":true,\"run_steer\":true,\"approval_events\":true,\"run_list\":true,"
                    + "\"run_events_resume\":true,\"model_options\":true,\"session_key_header\":\"X-Hermes-Session-Key\","
                    + "\"idempotency\":{\"runs\":{\"supported\":true,\"durable\":true,\"retention_seconds\":172800}}}",
                    features(host));
        }
    }

    @Test
    void theDefaultRetentionIs24Hours() {
        try (var host = host()) {
            assertEquals(86400, features(host).path("idempotency").path("runs").path("retention_seconds").asLong());
        }
    }

    @Test
    void serviceFileNamesThePlugin() throws Exception {
        var file = Path.of("src/main/resources/META-INF/services/dev.caduceus.spi.PlatformPlugin");
        assertEquals(RunsPlugin.class.getName(), Files.readString(file).trim());
    }
}
