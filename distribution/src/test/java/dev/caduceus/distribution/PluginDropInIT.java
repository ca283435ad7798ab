package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A third-party plugin jar, built at test time against api-spi only, dropped into
 * {@code $CADUCEUS_HOME/plugins}: served when enabled, gone when disabled, and a broken one stops
 * the boot unless {@code --lenient}.
 */
class PluginDropInIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Map<String, String> KEY = Caduceus.KEY_ENV;
    static final Map<String, String> AUTH = Caduceus.KEY_AUTH;

    @TempDir Path home;

    @Test
    void aDroppedInPluginIsServedAndListedInCapabilities() throws Exception {
        ThirdPartyPlugins.hello(home.resolve("plugins"));
        var env = new java.util.HashMap<>(KEY);
        env.put("CADUCEUS__PLUGINS__HELLO__GREETING", "hi from config");
        try (var server = Caduceus.serve(home, env)) {
            var hello = server.get("/v1/hello", AUTH);
            assertEquals(200, hello.statusCode(), hello.body());
            assertEquals("hi from config", JSON.readTree(hello.body()).path("message").asText());
            assertEquals(401, server.get("/v1/hello", Map.of()).statusCode());

            var caps = JSON.readTree(server.get("/v1/capabilities", AUTH).body());
            assertTrue(caps.path("features").path("hello").asBoolean(), caps.toString());
            assertEquals("/v1/hello", caps.path("endpoints").path("hello").path("path").asText());
            assertTrue(caps.path("plugins").findValuesAsText("id").contains("hello"));
            assertTrue(server.stdout().contains("hello 1.2.3"), server.stdout());
        }
    }

    @Test
    void aDisabledPluginsRoutesAnswer404AndItsCapabilitiesAreGone() throws Exception {
        ThirdPartyPlugins.hello(home.resolve("plugins"));
        var env = new java.util.HashMap<>(KEY);
        env.put("CADUCEUS__PLUGINS__DISABLED", "hello");
        try (var server = Caduceus.serve(home, env)) {
            var hello = server.get("/v1/hello", AUTH);
            assertEquals(404, hello.statusCode());
            assertEquals("not_found", JSON.readTree(hello.body()).path("error").path("code").asText());

            var caps = JSON.readTree(server.get("/v1/capabilities", AUTH).body());
            assertFalse(caps.path("features").has("hello"), caps.toString());
            assertFalse(caps.path("endpoints").has("hello"));
            assertFalse(caps.path("plugins").findValuesAsText("id").contains("hello"));
            assertTrue(server.stdout().contains("hello disabled: disabled by plugins.disabled"), server.stdout());
        }
    }

    @Test
    void aPluginThatThrowsInStartStopsTheBootNamingPluginAndJar() throws Exception {
        ThirdPartyPlugins.broken(home.resolve("plugins"));
        try (var process = Caduceus.launch(home, KEY, "serve")) {
            assertEquals(1, process.awaitExit());
            var err = process.stderr();
            assertTrue(err.contains("broken") && err.contains("broken.jar"), err);
            assertTrue(err.contains("cannot reach the thing it needs"), err);
        }
    }

    @Test
    void lenientSkipsTheBrokenPluginAndReportsItDegraded() throws Exception {
        ThirdPartyPlugins.broken(home.resolve("plugins"));
        ThirdPartyPlugins.hello(home.resolve("plugins"));
        try (var server = Caduceus.serve(home, KEY, "--lenient")) {
            assertEquals(200, server.get("/v1/hello", AUTH).statusCode());
            var health = JSON.readTree(server.get("/health/detailed", AUTH).body());
            var plugins = health.path("readiness").path("checks").path("plugins");
            assertEquals("degraded", plugins.path("status").asText(), plugins.toString());
            assertEquals(1, plugins.path("failed").asInt());
            assertTrue(server.stdout().contains("broken failed"), server.stdout());
        }
    }

    @Test
    void pluginsCommandListsJarsStatesAndContributions() throws Exception {
        ThirdPartyPlugins.hello(home.resolve("plugins"));
        var env = new java.util.HashMap<>(KEY);
        env.put("CADUCEUS__PLUGINS__DISABLED", "hello");
        try (var process = Caduceus.launch(home, env, "plugins")) {
            assertEquals(0, process.awaitExit(), process.stderr());
            var out = process.stdout();
            assertTrue(out.contains("endpoint-capabilities"), out);
            assertTrue(out.contains("route  GET /v1/models  (models)"), out);
            assertTrue(out.contains("hello") && out.contains("disabled by plugins.disabled"), out);
        }
        assertFalse(home.resolve("caduceus.db").toFile().exists(), "the listing does not touch the server's database");
    }
}
