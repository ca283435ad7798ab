package dev.caduceus.platform.host.plugin;

import static dev.caduceus.platform.host.plugin.TestPlugins.events;
import static dev.caduceus.platform.host.plugin.TestPlugins.jar;
import static dev.caduceus.platform.host.plugin.TestPlugins.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RegistriesTest {
    @TempDir Path base;

    private Path plugins() {
        return base.resolve("plugins");
    }

    /** A plugin contributing one family {@code id} under {@code basePath} with the given route lines and features. */
    private static String family(String id, String basePath, String routes, String features) {
        return """
                @Override public List<EndpointFamily> endpoints(PlatformContext c) {
                    return List.of(new EndpointFamily() {
                        public String id() { return "%s"; }
                        public String basePath() { return "%s"; }
                        public void routes(Routes r) { %s }
                        public ObjectNode features() { ObjectNode f = JsonNodeFactory.instance.objectNode(); %s return f; }
                    });
                }
                """.formatted(id, basePath, routes, features);
    }

    private Registries freeze() {
        var host = PluginHost.load(options(plugins(), true));
        try {
            return Registries.freeze(TestPlugins.boot(host, base));
        } finally {
            host.stopAll();
        }
    }

    @Test
    void freezesRoutesWithWrappedHandlersAndMergedFeatures() throws Exception {
        jar("runs", "", family("runs", "/v1/runs",
                "r.get(\"/v1/runs/{run_id}\", \"run\", ex -> log(\"handled tccl=\" + tccl()));"
                        + "r.post(\"/v1/runs\", null, ex -> {});",
                "f.put(\"run_list\", true); f.putObject(\"limits\").put(\"a\", 1);")).writeTo(plugins());
        jar("jobs", "", family("jobs", "/api/jobs", "r.route(\"PUT\", \"/api/jobs/{id}\", \"job_update\", ex -> {});",
                "f.putObject(\"limits\").put(\"b\", 2);")).writeTo(plugins());
        var host = PluginHost.load(options(plugins(), true));
        try {
            var registries = Registries.freeze(TestPlugins.boot(host, base));
            var routes = registries.routes();
            assertEquals(List.of("PUT /api/jobs/{id}", "GET /v1/runs/{run_id}", "POST /v1/runs"),
                    routes.stream().map(r -> r.method() + " " + r.template()).toList());
            var get = routes.get(1);
            assertEquals("runs", get.pluginId());
            assertEquals("run", get.name());
            assertNull(routes.get(2).name());
            get.handler().handle(null);
            assertTrue(events(base).contains("handled tccl=true"), events(base).toString());
            assertEquals("{\"limits\":{\"b\":2,\"a\":1},\"run_list\":true}", registries.features().toString());
            assertEquals(List.of("endpoints"), registries.kinds().get("runs"));
        } finally {
            host.stopAll();
        }
    }

    @Test
    void publicGetMarksOnlyThatRouteAsPublic() {
        jar("page", "", family("page", "/page",
                "r.publicGet(\"/page/{file}\", null, ex -> {}); r.get(\"/page/data\", \"page_data\", ex -> {});"
                        + "r.post(\"/page/{file}\", null, ex -> {});", "")).writeTo(plugins());
        var routes = freeze().routes();
        assertEquals(List.of("GET /page/{file} true", "GET /page/data false", "POST /page/{file} false"),
                routes.stream().map(r -> r.method() + " " + r.template() + " " + r.publicRoute()).toList());
    }

    @Test
    void aPublicRouteOutsideTheBasePathFailsToo() {
        jar("stray", "", family("stray", "/page", "r.publicGet(\"/v1/runs\", null, ex -> {});", "")).writeTo(plugins());
        var e = assertThrows(PluginBootException.class, this::freeze);
        assertTrue(e.getMessage().contains("plugin 'stray'") && e.getMessage().contains("base path /page"), e.getMessage());
    }

    @Test
    void routeCollisionAcrossPluginsFailsNamingBoth() {
        jar("first", "", family("one", "/v1", "r.get(\"/v1/things/{id}\", null, ex -> {});", "")).writeTo(plugins());
        jar("second", "", family("two", "/v1/things", "r.get(\"/v1/things/{thing_id}\", null, ex -> {});", ""))
                .writeTo(plugins());
        var e = assertThrows(PluginBootException.class, this::freeze);
        assertTrue(e.getMessage().contains("duplicate route GET /v1/things/{thing_id}"), e.getMessage());
        assertTrue(e.getMessage().contains("plugin 'first'") && e.getMessage().contains("plugin 'second'"), e.getMessage());
    }

    @Test
    void routeOutsideTheBasePathFails() {
        jar("stray", "", family("stray", "/v1/runs", "r.get(\"/v1/runsx\", null, ex -> {});", "")).writeTo(plugins());
        var e = assertThrows(PluginBootException.class, this::freeze);
        assertTrue(e.getMessage().contains("plugin 'stray'") && e.getMessage().contains("base path /v1/runs"), e.getMessage());
    }

    @Test
    void unsupportedMethodFails() {
        jar("odd", "", family("odd", "/odd", "r.route(\"TRACE\", \"/odd\", null, ex -> {});", "")).writeTo(plugins());
        var e = assertThrows(PluginBootException.class, this::freeze);
        assertTrue(e.getMessage().contains("TRACE"), e.getMessage());
    }

    @Test
    void duplicateFamilyIdFailsNamingBoth() {
        jar("first", "", family("same", "/a", "", "")).writeTo(plugins());
        jar("second", "", family("same", "/b", "", "")).writeTo(plugins());
        var e = assertThrows(PluginBootException.class, this::freeze);
        assertEquals("duplicate endpoint family id 'same': contributed by plugin 'first' and plugin 'second'", e.getMessage());
    }

    @Test
    void duplicateToolNamesFailNamingBoth() {
        var tools = "@Override public List<Tool> tools(PlatformContext c) { return List.of(tool(\"terminal\", \"x\")); }";
        jar("shell", "", tools).writeTo(plugins());
        jar("terminal", "", tools).writeTo(plugins());
        var e = assertThrows(PluginBootException.class, this::freeze);
        assertEquals("duplicate tool name 'terminal': contributed by plugin 'shell' and plugin 'terminal'", e.getMessage());
    }

    @Test
    void duplicateToolsetNamesFail() {
        var toolsets = "@Override public List<ToolsetSpec> toolsets(PlatformContext c) {"
                + " return List.of(new ToolsetSpec(\"web\", \"d\", List.of(), List.of())); }";
        jar("a", "", toolsets).writeTo(plugins());
        jar("b", "", toolsets).writeTo(plugins());
        var e = assertThrows(PluginBootException.class, this::freeze);
        assertEquals("duplicate toolset name 'web': contributed by plugin 'a' and plugin 'b'", e.getMessage());
    }

    /** A plugin contributing {@code count} response histories that know {@code resp_1}; the session id tells the TCCL. */
    private static String histories(int count) {
        return """
                @Override public List<Object> services(PlatformContext c) {
                    var list = new ArrayList<Object>();
                    for (int i = 0; i < %d; i++)
                        list.add((dev.caduceus.support.services.ResponseHistory) (owner, id) -> id.equals("resp_1") ? Optional.of(new dev.caduceus.support.services.ResponseHistory.Conversation(
                                "tccl=" + tccl(), "be brief", List.of(dev.caduceus.spi.message.Message.user("hi"))))
                                : Optional.empty());
                    return list;
                }
                """.formatted(count);
    }

    @Test
    void aServiceIsFoundByItsTypeAndCalledWithItsPluginsLoader() {
        jar("responses", "", histories(1)).writeTo(plugins());
        jar("other").writeTo(plugins());
        var registries = freeze();
        var history = registries.services().find(dev.caduceus.support.services.ResponseHistory.class).orElseThrow();
        var conversation = history.load("admin", "resp_1").orElseThrow();
        assertEquals("tccl=true", conversation.sessionId());
        assertEquals("be brief", conversation.instructions());
        assertEquals("hi", conversation.messages().getFirst().text());
        assertTrue(history.load("admin", "resp_unknown").isEmpty());
        assertEquals(List.of("services"), registries.kinds().get("responses"));
        assertEquals(List.of(), registries.kinds().get("other"));
    }

    @Test
    void noContributedServiceIsEmpty() {
        jar("other").writeTo(plugins());
        assertTrue(freeze().services().find(dev.caduceus.support.services.ResponseHistory.class).isEmpty());
    }

    @Test
    void servicesOfOneTypeFromTwoPluginsAreAllFoundButNotAsTheOne() {
        jar("first", "", histories(1)).writeTo(plugins());
        jar("second", "", histories(1)).writeTo(plugins());
        var services = freeze().services();
        assertEquals(2, services.all(dev.caduceus.support.services.ResponseHistory.class).size());
        var e = assertThrows(IllegalStateException.class,
                () -> services.find(dev.caduceus.support.services.ResponseHistory.class));
        assertEquals("several plugins offer a service of type dev.caduceus.support.services.ResponseHistory (first, second):"
                + " ask for all of them", e.getMessage());
    }

    @Test
    void aServiceTypeThePluginBundlesItselfMatchesByNameAndCrossesAsJson() {
        jar("responses", "", histories(1))
                .bundleCopyOf(dev.caduceus.support.services.ResponseHistory.class)
                .bundleCopyOf(dev.caduceus.support.services.ResponseHistory.Conversation.class)
                .writeTo(plugins());
        var history = freeze().services().find(dev.caduceus.support.services.ResponseHistory.class).orElseThrow();
        var conversation = history.load("admin", "resp_1").orElseThrow();
        assertEquals("tccl=true", conversation.sessionId());
        assertEquals("hi", conversation.messages().getFirst().text());
        assertTrue(history.load("admin", "resp_unknown").isEmpty());
    }

    @Test
    void aServiceWithoutAnSpiInterfaceFails() {
        jar("odd", "", "@Override public List<Object> services(PlatformContext c) { return List.of(new Object()); }")
                .writeTo(plugins());
        var e = assertThrows(PluginBootException.class, this::freeze);
        assertTrue(e.getMessage().startsWith("plugin 'odd' contributed a service of class java.lang.Object, which "
                + "implements no interface outside the JDK"), e.getMessage());
    }

    @Test
    void toolCatalogResolvesIncludesAndLeavesOutMissingTools() {
        jar("tools", "", """
                @Override public List<Tool> tools(PlatformContext c) { return List.of(tool("read_file", "r"), tool("terminal", "t")); }
                @Override public List<ToolsetSpec> toolsets(PlatformContext c) {
                    return List.of(new ToolsetSpec("file", "d", List.of("read_file", "write_file"), List.of()),
                                   new ToolsetSpec("dev", "d", List.of("terminal"), List.of("file", "nowhere")));
                }
                """).writeTo(plugins());
        var catalog = freeze().tools();
        assertEquals(List.of("read_file", "terminal"), catalog.tools().stream().map(t -> t.spec().name()).toList());
        assertEquals(List.of("terminal", "read_file"), List.copyOf(catalog.resolve("dev")));
        assertEquals(List.of("read_file"), List.copyOf(catalog.resolve("file")));
        assertTrue(catalog.tool("terminal").isPresent());
        assertThrows(IllegalArgumentException.class, () -> catalog.resolve("unknown"));
    }
}
