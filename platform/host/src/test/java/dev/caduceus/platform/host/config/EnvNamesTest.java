package dev.caduceus.platform.host.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EnvNamesTest {
    @Test
    void documentedNamesMapToKeys() {
        assertEquals(Optional.of("server.port"), EnvNames.keyFor("API_SERVER_PORT"));
        assertEquals(Optional.of("server.api_key"), EnvNames.keyFor("API_SERVER_KEY"));
        assertEquals(Optional.of("server.cors_origins"), EnvNames.keyFor("API_SERVER_CORS_ORIGINS"));
        assertEquals(Optional.of("gateway.proxy_key"), EnvNames.keyFor("GATEWAY_PROXY_KEY"));
        assertEquals(Optional.of("model.base_url"), EnvNames.keyFor("OPENAI_BASE_URL"));
        assertEquals(Optional.of("model.name"), EnvNames.keyFor("CADUCEUS_MODEL"));
        assertEquals(Optional.of("agent.max_iterations"), EnvNames.keyFor("HERMES_MAX_ITERATIONS"));
    }

    @Test
    void genericNamesLowerCaseAndDashPluginIds() {
        assertEquals(Optional.of("plugins.tool-terminal.timeout"),
                EnvNames.keyFor("CADUCEUS__PLUGINS__TOOL_TERMINAL__TIMEOUT"));
        assertEquals(Optional.of("plugins.tool-terminal.max_output.chars"),
                EnvNames.keyFor("CADUCEUS__PLUGINS__TOOL_TERMINAL__MAX_OUTPUT__CHARS"));
        assertEquals(Optional.of("server.max_body_bytes"), EnvNames.keyFor("CADUCEUS__SERVER__MAX_BODY_BYTES"));
        assertEquals(Optional.of("plugins.dir"), EnvNames.keyFor("CADUCEUS__PLUGINS__DIR"));
        assertEquals(Optional.empty(), EnvNames.keyFor("CADUCEUS_HOME"));
        assertEquals(Optional.empty(), EnvNames.keyFor("CADUCEUS____X"));
        assertEquals(Optional.empty(), EnvNames.keyFor("PATH"));
    }

    @Test
    void documentedNameWinsOverGenericAndEmptyIsUnset() {
        var settings = EnvNames.settings(Map.of("API_SERVER_PORT", "1", "CADUCEUS__SERVER__PORT", "2",
                "API_SERVER_KEY", "", "HOME", "/root"));
        assertEquals(List.of(new EnvNames.Setting("server.port", "1", "API_SERVER_PORT")), settings);
    }

    @Test
    void pluginSettingFromEnvironmentReachesThePlugin() {
        var c = new ConfigLoader(Map.of("CADUCEUS__PLUGINS__TOOL_TERMINAL__TIMEOUT", "120s"), java.nio.file.Path.of("/u"))
                .load(Optional.empty(), List.of()).config();
        var terminal = c.pluginConfig("tool-terminal");
        assertEquals(java.time.Duration.ofSeconds(120), terminal.duration("timeout", java.time.Duration.ZERO));
        assertEquals("environment variable CADUCEUS__PLUGINS__TOOL_TERMINAL__TIMEOUT",
                c.source("plugins.tool-terminal.timeout"));
    }
}
