package dev.caduceus.plugin.toolsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.spi.tool.ToolsetSpec;
import dev.caduceus.support.services.BatchCatalog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The plugin's jar on the real host ({@link TestHost}) with the terminal, web (a search backend set, so
 * web_search is available) and memory tools for its toolsets to resolve: what it contributed, read where
 * the host keeps it (the deployment, the services, {@code caduceus plugins}). The file tools are not
 * loaded here, so they are resolved away. One host for the class: nothing here changes it.
 */
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

    static TestHost host;

    @BeforeAll
    static void boot() {
        host = TestHost.builder().plugins("toolsets-hermes", "tool-terminal", "tool-web", "tool-memory")
                .env("CADUCEUS__TOOLS__TERMINAL__BACKEND", "local")
                .env("CADUCEUS__TOOLS__WEB__SEARCH__SEARXNG__URL", "http://127.0.0.1:1")
                .start();
    }

    @AfterAll
    static void shutDown() {
        host.close();
    }

    /** The toolsets as the host registered them, contributed by this plugin alone here. */
    @Test
    void contributesExactlyTheToolsetsOfTheSpecTable() {
        var byName = host.deployment().toolsets().stream().collect(Collectors.toMap(ToolsetSpec::name, t -> t));
        assertEquals(TABLE.keySet(), byName.keySet());
        TABLE.forEach((name, row) -> {
            var spec = byName.get(name);
            assertEquals(row.get(0), spec.tools(), name + " tools");
            assertEquals(row.get(1), spec.includes(), name + " includes");
            assertFalse(spec.description().isBlank(), name + " description");
        });
    }

    /**
     * What {@code caduceus plugins} says each toolset resolves to, through the host's own catalog: the
     * loaded web, terminal and memory tools, the file tools resolved away.
     */
    @Test
    void hermesApiServerResolvesToTheLoadedWebTerminalAndMemoryToolsAndTheRestAway() {
        var resolved = new java.util.HashMap<String, TreeSet<String>>(); // toolset → its tools, sorted
        host.pluginListing().lines().map(String::strip).filter(l -> l.startsWith("toolset ")).forEach(l -> {
            var tools = l.substring(l.indexOf(" -> [") + 5, l.length() - 1);
            resolved.put(l.substring("toolset ".length(), l.indexOf(" -> ")),
                    new TreeSet<>(tools.isEmpty() ? List.of() : List.of(tools.split(", "))));
        });
        assertEquals("[memory, process, terminal, web_extract, web_search]", resolved.get("hermes-api-server").toString(),
                resolved.toString());
        assertEquals("[process, terminal, web_extract, web_search]", resolved.get("debugging").toString());
        assertEquals("[web_search]", resolved.get("search").toString());
        assertEquals("[]", resolved.get("file").toString(), "no plugin provides the file tools here");
        assertEquals(TABLE.keySet(), resolved.keySet());
        // a turn asking for a toolset nobody contributes is offered no tool (it fails closed)
        assertEquals(List.of(), host.tools("browser"));
    }

    @Test
    void servicesFileNamesThePlugin() throws IOException {
        try (var in = getClass().getClassLoader().getResourceAsStream("META-INF/services/dev.caduceus.spi.PlatformPlugin")) {
            assertTrue(in != null, "services file missing");
            assertEquals(ToolsetsPlugin.class.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8).strip());
        }
    }

    /** The host's record of what the plugin started with: toolsets and a service, no tools, no routes. */
    @Test
    void contributesNoTools() {
        var status = host.deployment().plugins().stream().filter(p -> p.id().equals("toolsets-hermes")).findFirst()
                .orElseThrow();
        assertEquals(List.of("toolsets", "services"), status.kinds());
        assertTrue(host.deployment().routes().stream().noneMatch(r -> r.pluginId().equals("toolsets-hermes")));
    }

    /** The {@code BatchCatalog} service the batch runner finds, as the host hands it to another plugin. */
    @Test
    void contributesHermesToolNamesAsTheHermesToolStatsSchema() {
        var catalogs = host.services(BatchCatalog.class);
        assertEquals(1, catalogs.size(), "one catalog, this plugin's");
        var schemas = catalogs.getFirst().toolStatsSchemas();
        assertEquals(1, schemas.size());
        var hermes = schemas.getFirst();
        assertEquals("hermes", hermes.name());
        assertTrue(hermes.source().contains("NousResearch/hermes-agent@00075f36"), hermes.source());
        assertEquals(90, hermes.toolNames().size());
        assertEquals(new TreeSet<>(hermes.toolNames()).stream().toList(), hermes.toolNames(), "sorted, no duplicates");
        assertTrue(hermes.toolNames().containsAll(List.of("terminal", "web_search", "read_file", "memory", "browser_click")));
    }
}
