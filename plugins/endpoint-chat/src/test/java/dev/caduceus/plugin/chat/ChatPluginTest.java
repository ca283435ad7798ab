package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The family the plugin contributes, built over a fake context: no request is served here. */
class ChatPluginTest {
    private static ChatFamily family(Map<String, String> config) {
        var ctx = dev.caduceus.platform.testkit.FakePlatformContext.builder("endpoint-chat").globalConfig(config).sections(config)
                .build();
        return (ChatFamily) new ChatPlugin().endpoints(ctx).getFirst();
    }

    @Test
    void familyAdvertisesTheContractsChatFeatures() throws Exception {
        var chat = family(Map.of("idempotency.ttl_seconds", "120"));
        assertEquals("chat", chat.id());
        assertEquals("/v1/chat/completions", chat.basePath());
        assertEquals("{\"chat_completions\":true,\"chat_completions_streaming\":true,\"tool_progress_events\":true,"
                + "\"model_options\":true,\"session_continuity_header\":\"X-Hermes-Session-Id\","
                + "\"session_key_header\":\"X-Hermes-Session-Key\",\"tool_progress_opt_in_header\":\"X-Hermes-Tool-Progress\","
                + "\"tool_progress\":{\"default\":\"comments\",\"header\":\"X-Hermes-Tool-Progress\","
                + "\"header_overrides\":true,\"modes\":[\"comments\",\"events\",\"reasoning\",\"none\"]},"
                + "\"idempotency\":{\"chat_completions\":{\"supported\":true,\"durable\":false,\"retention_seconds\":120}}}",
                chat.features().toString());
    }

    @Test
    void capabilitiesSayHowThisDeploymentShowsToolProgress() throws Exception {
        var reasoning = family(Map.of("chat.tool_progress", "reasoning"));
        assertEquals("reasoning", reasoning.features().at("/tool_progress/default").asText());
        var legacyOff = family(Map.of("chat.tool_progress_events", "off"));
        assertEquals("none", legacyOff.features().at("/tool_progress/default").asText());
        assertEquals(false, legacyOff.features().at("/tool_progress/header_overrides").asBoolean(true));
    }

    @Test
    void serviceFileNamesThePlugin() throws Exception {
        var file = Path.of("src/main/resources/META-INF/services/dev.caduceus.spi.PlatformPlugin");
        assertEquals(ChatPlugin.class.getName(), Files.readString(file).trim());
    }
}
