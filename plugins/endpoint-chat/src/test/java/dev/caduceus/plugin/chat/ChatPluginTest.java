package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.TestHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The family as the real host serves it: its features as {@code /v1/capabilities} shows them
 * (endpoint-capabilities beside it) under the given settings, its routes as {@code caduceus plugins}
 * lists them.
 */
class ChatPluginTest {
    static final ObjectMapper JSON = new ObjectMapper();

    /** {@code /v1/capabilities}' features on a host with {@code env} ({@code NAME, value, …}). */
    private static JsonNode features(String... env) {
        var builder = TestHost.builder().plugins("endpoint-chat", "endpoint-capabilities");
        for (int i = 0; i + 1 < env.length; i += 2) builder.env(env[i], env[i + 1]);
        try (var host = builder.start()) {
            assertEquals(Map.of("POST /v1/chat/completions", "chat_completions"), host.routesOf("endpoint-chat"));
            var answer = host.http().get("/v1/capabilities");
            assertEquals(200, answer.status(), answer.body());
            return answer.json().path("features");
        }
    }

    @Test
    void familyAdvertisesTheContractsChatFeatures() throws Exception {
        var features = features("CADUCEUS__IDEMPOTENCY__TTL_SECONDS", "120");
        JSON.readTree("{\"chat_completions\":true,\"chat_completions_streaming\":true,\"tool_progress_events\":true,"
                + "\"model_options\":true,\"session_continuity_header\":\"X-Hermes-Session-Id\","
                + "\"session_key_header\":\"X-Hermes-Session-Key\",\"tool_progress_opt_in_header\":\"X-Hermes-Tool-Progress\","
                + "\"tool_progress\":{\"default\":\"comments\",\"header\":\"X-Hermes-Tool-Progress\","
                + "\"header_overrides\":true,\"modes\":[\"comments\",\"events\",\"reasoning\",\"none\"]},"
                + "\"idempotency\":{\"chat_completions\":{\"supported\":true,\"durable\":false,\"retention_seconds\":120}}}")
                .fields().forEachRemaining(f -> assertEquals(f.getValue(), features.get(f.getKey()), f.getKey() + " in " + features));
    }

    @Test
    void capabilitiesSayHowThisDeploymentShowsToolProgress() throws Exception {
        var reasoning = features("CADUCEUS__CHAT__TOOL_PROGRESS", "reasoning");
        assertEquals("reasoning", reasoning.at("/tool_progress/default").asText());
        var legacyOff = features("CADUCEUS__CHAT__TOOL_PROGRESS_EVENTS", "off");
        assertEquals("none", legacyOff.at("/tool_progress/default").asText());
        assertEquals(false, legacyOff.at("/tool_progress/header_overrides").asBoolean(true));
    }

    @Test
    void serviceFileNamesThePlugin() throws Exception {
        var file = Path.of("src/main/resources/META-INF/services/dev.caduceus.spi.PlatformPlugin");
        assertEquals(ChatPlugin.class.getName(), Files.readString(file).trim());
    }
}
