package dev.caduceus.plugin.capabilities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.testkit.ManualClock;
import dev.caduceus.platform.testkit.TestHost;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The capabilities family on the real host ({@link TestHost}: this plugin's jar, the terminal and web
 * tools, the Hermes toolsets and distributions, the memory tool disabled, CORS on): what
 * {@code /v1/models}, {@code /v1/capabilities} and {@code /v1/toolsets} say about that deployment.
 * One host for the class; the tests only read.
 */
class CapabilitiesPluginTest {
    static final Instant T0 = Instant.parse("2026-01-15T09:00:00Z");
    static TestHost host;

    @BeforeAll
    static void boot() {
        host = TestHost.builder().plugins("endpoint-capabilities", "tool-terminal", "tool-web", "tool-memory",
                        "toolsets-hermes")
                .clock(new ManualClock(T0))
                .env("CADUCEUS__TOOLS__TERMINAL__BACKEND", "local")
                .env("CADUCEUS__PLUGINS__DISABLED", "tool-memory")
                .env("CADUCEUS__SERVER__CORS_ORIGINS", "https://app.example")
                .start();
    }

    @AfterAll
    static void shutDown() {
        host.close();
    }

    @Test
    void modelsListsExactlyTheAdvertisedName() {
        var body = get("/v1/models");
        assertEquals("list", body.path("object").asText());
        assertEquals(1, body.path("data").size());
        var model = body.path("data").get(0);
        assertEquals("hermes-agent", model.path("id").asText());
        assertEquals("hermes-agent", model.path("root").asText());
        assertEquals(T0.getEpochSecond(), model.path("created").asLong(), "the platform's clock");
        assertTrue(model.path("parent").isNull());
    }

    @Test
    void capabilitiesComposeFeaturesEndpointsAndPluginsFromTheDeployment() {
        var body = get("/v1/capabilities");
        assertEquals("hermes.api_server.capabilities", body.path("object").asText());
        assertTrue(body.path("auth").path("required").asBoolean());
        assertEquals("server_agent", body.path("runtime").path("mode").asText());
        assertFalse(body.path("features").path("jobs_admin").asBoolean(), "a family not deployed reads false");
        assertTrue(body.path("features").has("chat_completions"), "every known flag is present");
        assertTrue(body.path("features").path("cors").asBoolean(), "server.cors_origins is set");
        assertEquals("/v1/capabilities", body.path("endpoints").path("capabilities").path("path").asText());
        assertEquals("GET", body.path("endpoints").path("health").path("method").asText());
        var named = new TreeSet<String>();
        body.path("endpoints").fieldNames().forEachRemaining(named::add);
        assertEquals(new TreeSet<>(List.of("capabilities", "health", "health_detailed", "metrics", "models", "toolsets",
                "usage", "webhook_deliveries", "webhook_delivery", "webhook_delivery_redeliver")), named, "every named route");
        assertTrue(host.output().contains("routes:   11 "), "and one route without a name, not listed: " + host.output());
        var plugins = new ArrayList<String>();
        body.path("plugins").forEach(p -> plugins.add(p.path("id").asText()));
        assertFalse(plugins.contains("tool-memory"), "only started plugins are listed: " + plugins);
        assertTrue(plugins.contains("endpoint-capabilities"), plugins.toString());
        for (var p : body.path("plugins"))
            if (p.path("id").asText().equals("endpoint-capabilities"))
                assertEquals("endpoints", p.path("kinds").get(0).asText());
    }

    @Test
    void capabilitiesListAvailableToolsByToolsetAndToolsetsAndDistributions() {
        var body = get("/v1/capabilities");
        assertEquals("[\"process\",\"terminal\"]", body.path("tools").path("terminal").toString());
        assertEquals("[\"web_extract\"]", body.path("tools").path("web").toString(),
                "unavailable tools are left out (web_search has no backend)");
        var toolsets = new ArrayList<JsonNode>();
        body.path("toolsets").forEach(toolsets::add);
        assertEquals(List.of("debugging", "file", "hermes-api-server", "memory", "search", "terminal", "web"),
                toolsets.stream().map(t -> t.path("name").asText()).toList());
        var debugging = toolsets.getFirst();
        assertTrue(debugging.path("tools").toString().contains("\"terminal\"")
                && debugging.path("tools").toString().contains("\"web_search\""), debugging.toString());
        var search = toolsets.get(4);
        assertFalse(search.path("available").asBoolean(), "its only tool is unavailable: " + search);
        var distributions = body.path("distributions");
        assertTrue(distributions.size() > 0, body.toString());
        var names = new ArrayList<String>();
        distributions.forEach(d -> names.add(d.path("name").asText()));
        assertEquals(names.stream().sorted().toList(), names, "distributions are listed by name");
        var terminalOnly = distributions.get(names.indexOf("terminal_only"));
        assertEquals("{\"file\":100,\"terminal\":100}", terminalOnly.path("toolsets").toString(), terminalOnly.toString());
    }

    @Test
    void toolsetsMarkTheAgentsToolsetsEnabled() {
        var data = get("/v1/toolsets").path("data");
        JsonNode agents = null;
        JsonNode terminal = null;
        for (var t : data) {
            if (t.path("name").asText().equals("hermes-api-server")) agents = t;
            if (t.path("name").asText().equals("terminal")) terminal = t;
        }
        assertEquals("Hermes Api Server", agents.path("label").asText(), data.toString());
        assertTrue(agents.path("enabled").asBoolean(), "agent.toolsets");
        assertFalse(terminal.path("enabled").asBoolean());
        assertTrue(terminal.path("configured").asBoolean());
    }

    @Test
    void eachFamilyOwnsOneBasePathWithOneNamedGetRoute() {
        var listing = host.pluginListing(); // caduceus plugins: each plugin's routes
        var routes = listing.lines().map(String::strip).filter(l -> l.startsWith("route ")).toList();
        assertEquals(List.of("route  GET /v1/models  (models)", "route  GET /v1/toolsets  (toolsets)",
                "route  GET /v1/capabilities  (capabilities)"), routes, listing);
    }

    private static JsonNode get(String path) {
        var response = host.http().get(path);
        assertEquals(200, response.status(), response.body());
        return response.json();
    }
}
