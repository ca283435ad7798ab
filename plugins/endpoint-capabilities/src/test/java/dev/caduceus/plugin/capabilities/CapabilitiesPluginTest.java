package dev.caduceus.plugin.capabilities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.Deployment.PluginStatus;
import dev.caduceus.spi.Deployment.RouteInfo;
import dev.caduceus.spi.Deployment.State;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.support.services.BatchCatalog;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import dev.caduceus.spi.tool.ToolsetSpec;
import dev.caduceus.platform.testkit.FakeDeployment;
import dev.caduceus.platform.testkit.FakeExchange;
import dev.caduceus.platform.testkit.FakePlatformContext;
import dev.caduceus.platform.testkit.FakeToolCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CapabilitiesPluginTest {

    @Test
    void modelsListsExactlyTheAdvertisedName() throws Exception {
        var ctx = FakePlatformContext.builder("endpoint-capabilities").build();
        var body = get(ctx, "/v1/models");
        assertEquals("list", body.path("object").asText());
        assertEquals(1, body.path("data").size());
        var model = body.path("data").get(0);
        assertEquals("hermes-agent", model.path("id").asText());
        assertEquals("hermes-agent", model.path("root").asText());
        assertEquals(ctx.clock().instant().getEpochSecond(), model.path("created").asLong());
        assertTrue(model.path("parent").isNull());
    }

    @Test
    void capabilitiesComposeFeaturesEndpointsAndPluginsFromTheDeployment() throws Exception {
        var features = JsonNodeFactory.instance.objectNode().put("run_list", true).put("run_submission", true);
        var deployment = new FakeDeployment(
                List.of(new PluginStatus("endpoint-runs", "1.2.3", State.STARTED, List.of("endpoints"), null),
                        new PluginStatus("endpoint-jobs", "1.2.3", State.DISABLED, List.of(), "disabled by config")),
                List.of(new RouteInfo("GET", "/health", "health", "core", "core"),
                        new RouteInfo("GET", "/v1/runs", "run_list", "runs", "endpoint-runs"),
                        new RouteInfo("POST", "/v1/runs/{run_id}/stop", null, "runs", "endpoint-runs")),
                features, "local", true);
        var ctx = FakePlatformContext.builder("endpoint-capabilities").deployment(deployment).build();

        var body = get(ctx, "/v1/capabilities");

        assertEquals("hermes.api_server.capabilities", body.path("object").asText());
        assertTrue(body.path("auth").path("required").asBoolean());
        assertEquals("server_agent", body.path("runtime").path("mode").asText());
        assertTrue(body.path("features").path("run_list").asBoolean());
        assertFalse(body.path("features").path("jobs_admin").asBoolean(), "disabled family reads false");
        assertTrue(body.path("features").has("chat_completions"), "every known flag is present");
        assertTrue(body.path("features").path("cors").asBoolean());
        assertEquals("/v1/runs", body.path("endpoints").path("run_list").path("path").asText());
        assertEquals("GET", body.path("endpoints").path("health").path("method").asText());
        assertEquals(2, body.path("endpoints").size(), "unnamed routes are not listed");
        assertEquals(1, body.path("plugins").size(), "only started plugins are listed");
        assertEquals("endpoint-runs", body.path("plugins").get(0).path("id").asText());
        assertEquals("endpoints", body.path("plugins").get(0).path("kinds").get(0).asText());
    }

    @Test
    void capabilitiesListAvailableToolsByToolsetAndToolsetsAndDistributions() throws Exception {
        var tools = new FakeToolCatalog(
                List.of(tool("terminal", "terminal", true), tool("process", "terminal", true),
                        tool("web_search", "web", false)),
                List.of(new ToolsetSpec("terminal", "Run commands", List.of("terminal", "process"), List.of()),
                        new ToolsetSpec("web", "Web", List.of("web_search", "web_extract"), List.of()),
                        new ToolsetSpec("everything", "All", List.of(), List.of("terminal", "web"))));
        BatchCatalog batch = new BatchCatalog() {
            @Override public List<BatchCatalog.Distribution> distributions() {
                return List.of(new BatchCatalog.Distribution("terminal_only", "Terminal", Map.of("terminal", 100)));
            }
            @Override public List<BatchCatalog.ToolStatsSchema> toolStatsSchemas() { return List.of(); }
        };
        var ctx = FakePlatformContext.builder("endpoint-capabilities").tools(tools).service(BatchCatalog.class, batch).build();

        var body = get(ctx, "/v1/capabilities");

        assertEquals("[\"process\",\"terminal\"]", body.path("tools").path("terminal").toString());
        assertFalse(body.path("tools").has("web"), "unavailable tools are left out");
        var toolsets = body.path("toolsets");
        assertEquals(3, toolsets.size());
        var everything = toolsets.get(0);
        assertEquals("everything", everything.path("name").asText());
        assertEquals("[\"process\",\"terminal\",\"web_search\"]", everything.path("tools").toString());
        assertTrue(toolsets.get(2).path("name").asText().equals("web") && !toolsets.get(2).path("available").asBoolean());
        assertEquals(100, body.path("distributions").get(0).path("toolsets").path("terminal").asInt());
    }

    @Test
    void toolsetsMarkTheAgentsToolsetsEnabled() throws Exception {
        var tools = new FakeToolCatalog(List.of(tool("terminal", "terminal", true)),
                List.of(new ToolsetSpec("hermes-api-server", "API agent", List.of(), List.of("terminal")),
                        new ToolsetSpec("terminal", "Run commands", List.of("terminal"), List.of())));
        var ctx = FakePlatformContext.builder("endpoint-capabilities").tools(tools).build();

        var data = get(ctx, "/v1/toolsets").path("data");

        assertEquals("Hermes Api Server", data.get(0).path("label").asText());
        assertTrue(data.get(0).path("enabled").asBoolean());
        assertFalse(data.get(1).path("enabled").asBoolean());
        assertTrue(data.get(1).path("configured").asBoolean());
    }

    @Test
    void eachFamilyOwnsOneBasePathWithOneNamedGetRoute() {
        var ctx = FakePlatformContext.builder("endpoint-capabilities").build();
        var registered = new ArrayList<String>();
        for (EndpointFamily family : new CapabilitiesPlugin().endpoints(ctx)) {
            family.routes((method, template, name, handler) -> {
                assertTrue(template.startsWith(family.basePath()));
                registered.add(method + " " + template + " " + name);
                return null;
            });
        }
        assertEquals(List.of("GET /v1/models models", "GET /v1/toolsets toolsets",
                "GET /v1/capabilities capabilities"), registered);
    }

    private static JsonNode get(FakePlatformContext ctx, String path) throws Exception {
        HttpHandler[] found = new HttpHandler[1];
        for (var family : new CapabilitiesPlugin().endpoints(ctx)) {
            family.routes((method, template, name, handler) -> {
                if (template.equals(path)) found[0] = handler;
                return null;
            });
        }
        var exchange = new FakeExchange(ctx.json(), "GET", path).call(found[0]);
        assertEquals(200, exchange.status());
        return exchange.responseBody();
    }

    private static Tool tool(String name, String toolset, boolean available) {
        var spec = new ToolSpec(name, name + " tool", JsonNodeFactory.instance.objectNode(), toolset, List.of(),
                ToolRisk.READ_ONLY, 1000, true, false, null);
        return new Tool() {
            @Override public ToolSpec spec() { return spec; }
            @Override public boolean available() { return available; }
            @Override public ToolResult call(ToolCall call, ToolContext ctx) { return new ToolResult.Ok("ok"); }
        };
    }

}
