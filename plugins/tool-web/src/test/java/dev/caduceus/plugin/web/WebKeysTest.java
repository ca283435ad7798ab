package dev.caduceus.plugin.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.FakePlatformContext;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WebKeysTest {

    @Test
    void everyDeclaredKeyIsUnderToolsWebAndTheSecretsShowNoDefault() {
        var plugin = new WebPlugin();
        assertEquals(WebKeys.ALL, plugin.settings());
        plugin.settings().forEach(s -> assertTrue(s.key().startsWith("tools.web."), s.key()));
        assertNull(WebKeys.SEARXNG_API_KEY.defaultValue());
        assertNull(WebKeys.TAVILY_API_KEY.defaultValue());
    }

    @Test
    void unsetKeysReadAsTheDeclaredDefaults() {
        var tools = FakePlatformContext.builder("tool-web").toolsConfig(Map.of()).build().section("tools");
        var read = WebSettings.from(tools, "1.0.0");
        assertEquals(WebKeys.BACKEND.defaultValue(), read.backend());
        assertEquals(WebKeys.TAVILY_URL.defaultValue(), read.tavilyUrl());
        assertEquals(WebKeys.MAX_RESULTS.defaultValue(), Integer.toString(read.maxResults()));
        assertEquals(WebKeys.MAX_CHARS.defaultValue(), Integer.toString(read.maxChars()));
        assertEquals(WebKeys.MAX_BYTES.defaultValue(), Long.toString(read.maxBytes()));
        assertEquals(WebKeys.TIMEOUT.defaultValue(), Long.toString(read.timeout().toSeconds()));
    }
}
