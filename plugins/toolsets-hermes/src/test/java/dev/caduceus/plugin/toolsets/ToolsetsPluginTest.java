package dev.caduceus.plugin.toolsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import dev.caduceus.spi.tool.ToolsetSpec;
import dev.caduceus.platform.testkit.FakePlatformContext;
import dev.caduceus.platform.testkit.FakeToolCatalog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ToolsetsPluginTest {
    static final List<String> HERMES_TOOLS = List.of("web_search", "web_extract", "terminal", "process",
            "read_file", "write_file", "patch", "search_files", "memory");

    /** The Hermes toolsets, row by row: name → (tools, includes). */
    static final Map<String, List<List<String>>> TABLE = new LinkedHashMap<>();
    static {
        TABLE.put("web", List.of(List.of("web_search", "web_extract"), List.of()));
        TABLE.put("search", List.of(List.of("web_search"), List.of()));
        TABLE.put("terminal", List.of(List.of("terminal", "process"), List.of()));
        TABLE.put("file", List.of(List.of("read_file", "write_file", "patch", "search_files"), List.of()));
        TABLE.put("memory", List.of(List.of("memory"), List.of()));
        TABLE.put("debugging", List.of(List.of("terminal", "process"), List.of("web", "file")));
        TABLE.put("hermes-api-server", List.of(List.of(), List.of("web", "terminal", "file", "memory")));
    }

    List<ToolsetSpec> toolsets() {
        return new ToolsetsPlugin().toolsets(FakePlatformContext.builder("toolsets-hermes").build());
    }

    @Test
    void contributesExactlyTheToolsetsOfTheSpecTable() {
        var byName = toolsets().stream().collect(Collectors.toMap(ToolsetSpec::name, t -> t));
        assertEquals(TABLE.keySet(), byName.keySet());
        TABLE.forEach((name, row) -> {
            var spec = byName.get(name);
            assertEquals(row.get(0), spec.tools(), name + " tools");
            assertEquals(row.get(1), spec.includes(), name + " includes");
            assertFalse(spec.description().isBlank(), name + " description");
        });
    }

    @Test
    void hermesApiServerResolvesToWebTerminalFileAndMemoryTools() {
        var catalog = new FakeToolCatalog(HERMES_TOOLS.stream().map(ToolsetsPluginTest::tool).toList(), toolsets());
        assertEquals(new TreeSet<>(HERMES_TOOLS), catalog.resolve("hermes-api-server"));
        assertEquals(Set.of("terminal", "process", "web_search", "web_extract", "read_file", "write_file", "patch",
                "search_files"), catalog.resolve("debugging"));
        assertEquals(Set.of("web_search"), catalog.resolve("search"));
        assertThrows(IllegalArgumentException.class, () -> catalog.resolve("browser"));
    }

    @Test
    void toolsNoPluginProvidesAreResolvedAway() {
        var catalog = new FakeToolCatalog(List.of(tool("memory"), tool("terminal")), toolsets());
        assertEquals(Set.of("memory", "terminal"), catalog.resolve("hermes-api-server"));
    }

    @Test
    void servicesFileNamesThePlugin() throws IOException {
        try (var in = getClass().getClassLoader().getResourceAsStream("META-INF/services/dev.caduceus.spi.PlatformPlugin")) {
            assertTrue(in != null, "services file missing");
            assertEquals(ToolsetsPlugin.class.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8).strip());
        }
    }

    @Test
    void contributesNoTools() {
        var ctx = FakePlatformContext.builder("toolsets-hermes").build();
        assertTrue(new ToolsetsPlugin().tools(ctx).isEmpty());
    }

    static Tool tool(String name) {
        var spec = new ToolSpec(name, name, JsonNodeFactory.instance.objectNode().put("type", "object"), "test",
                List.of(), ToolRisk.READ_ONLY, 100_000, true, false, null);
        return new Tool() {
            @Override public ToolSpec spec() { return spec; }
            @Override public ToolResult call(ToolCall call, ToolContext ctx) { return new ToolResult.Ok("{}"); }
        };
    }

    @Test
    void contributesHermesToolNamesAsTheHermesToolStatsSchema() {
        var schemas = ((dev.caduceus.support.services.BatchCatalog) new ToolsetsPlugin().services(FakePlatformContext.builder("toolsets-hermes").build()).getFirst()).toolStatsSchemas();
        assertEquals(1, schemas.size());
        var hermes = schemas.getFirst();
        assertEquals("hermes", hermes.name());
        assertTrue(hermes.source().contains("NousResearch/hermes-agent@00075f36"), hermes.source());
        assertEquals(90, hermes.toolNames().size());
        assertEquals(new TreeSet<>(hermes.toolNames()).stream().toList(), hermes.toolNames(), "sorted, no duplicates");
        assertTrue(hermes.toolNames().containsAll(List.of("terminal", "web_search", "read_file", "memory", "browser_click")));
    }
}
