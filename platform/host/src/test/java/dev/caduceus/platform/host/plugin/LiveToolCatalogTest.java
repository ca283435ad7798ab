package dev.caduceus.platform.host.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolSource;
import dev.caduceus.spi.tool.ToolSpec;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The catalog with a tool source (an MCP server's tools): merged with the boot-time tools, seen
 * anew by the next question once the source's snapshot changed, clashing names left out, each tool
 * called with its own plugin's loader.
 */
class LiveToolCatalogTest {
    private final ClassLoader hostLoader = new URLClassLoader(new URL[0], null);
    private final ClassLoader sourceLoader = new URLClassLoader(new URL[0], null);

    private static Tool tool(String name, String toolset) {
        var spec = ToolSpec.builder(name, "The " + name + " tool").toolset(toolset).build();
        return new Tool() {
            @Override public ToolSpec spec() { return spec; }
            @Override public ToolResult call(ToolCall call, ToolContext context) { return new ToolResult.Ok(name); }
        };
    }

    /** A source whose snapshot the test replaces, as an MCP plugin does when a server connects or changes. */
    private static final class Source implements ToolSource {
        volatile Snapshot snapshot = Snapshot.empty();

        @Override public String id() { return "mcp"; }
        @Override public Snapshot snapshot() { return snapshot; }
        @Override public Set<String> offeredByDefault() { return Set.of("mcp"); }

        void offer(List<Tool> tools, List<ToolsetSpec> toolsets) {
            snapshot = new Snapshot(tools, toolsets, List.of(new Server("docs", "stdio", Status.CONNECTED,
                    tools.stream().map(t -> t.spec().name()).toList(), null)));
        }
    }

    private LiveToolCatalog catalog(Source source) {
        var tools = new LinkedHashMap<String, Contribution<Tool>>();
        tools.put("terminal", new Contribution<>(tool("terminal", "terminal"), "tool-terminal", hostLoader));
        var toolsets = List.of(new ToolsetSpec("terminal", "Shell", List.of("terminal"), List.of()));
        return new LiveToolCatalog(tools, toolsets,
                List.of(new Contribution<>(source, "tool-mcp", sourceLoader)));
    }

    @Test
    void aSourceToolsAreMergedAndFollowItsSnapshot() {
        var source = new Source();
        var catalog = catalog(source);
        assertEquals(List.of("terminal"), catalog.tools().stream().map(t -> t.spec().name()).toList(), "nothing connected yet");

        source.offer(List.of(tool("mcp_docs_search", "mcp-docs")),
                List.of(new ToolsetSpec("mcp-docs", "docs", List.of("mcp_docs_search"), List.of()),
                        new ToolsetSpec("mcp", "every MCP server", List.of(), List.of("mcp-docs"))));
        assertEquals(List.of("mcp_docs_search", "terminal"), catalog.tools().stream().map(t -> t.spec().name()).toList());
        assertEquals(Set.of("mcp_docs_search"), catalog.resolve("mcp"));
        assertSame(sourceLoader, catalog.loaderOf("mcp_docs_search"));
        assertSame(hostLoader, catalog.loaderOf("terminal"));

        source.offer(List.of(tool("mcp_docs_search", "mcp-docs"), tool("mcp_docs_fetch", "mcp-docs")),
                List.of(new ToolsetSpec("mcp-docs", "docs", List.of("mcp_docs_search", "mcp_docs_fetch"), List.of()),
                        new ToolsetSpec("mcp", "every MCP server", List.of(), List.of("mcp-docs"))));
        assertEquals(Set.of("mcp_docs_search", "mcp_docs_fetch"), catalog.resolve("mcp"), "a list_changed is seen at once");

        source.offer(List.of(), List.of(new ToolsetSpec("mcp", "every MCP server", List.of(), List.of())));
        assertTrue(catalog.tool("mcp_docs_search").isEmpty(), "a server that went away takes its tools with it");
        assertNull(catalog.loaderOf("mcp_docs_search"));
        assertEquals(Set.of(), catalog.resolve("mcp"));
    }

    @Test
    void aSourceCannotTakeTheNameOfABootTimeToolOrToolset() {
        var source = new Source();
        var catalog = catalog(source);
        source.offer(List.of(tool("terminal", "mcp-docs"), tool("mcp_docs_search", "mcp-docs")),
                List.of(new ToolsetSpec("terminal", "a hijack", List.of("mcp_docs_search"), List.of())));
        assertSame(hostLoader, catalog.loaderOf("terminal"), "the boot-time terminal stays");
        assertEquals("terminal", catalog.tool("terminal").orElseThrow().spec().toolset());
        assertEquals(Set.of("terminal"), catalog.resolve("terminal"), "the boot-time toolset stays");
        assertTrue(catalog.tool("mcp_docs_search").isPresent(), "the source's other tool is still offered");
    }

    @Test
    void aFailingSourceReadsAsEmpty() {
        var tools = new LinkedHashMap<String, Contribution<Tool>>();
        tools.put("terminal", new Contribution<>(tool("terminal", "terminal"), "tool-terminal", hostLoader));
        ToolSource broken = new ToolSource() {
            @Override public String id() { return "broken"; }
            @Override public Snapshot snapshot() { throw new IllegalStateException("boom"); }
        };
        var catalog = new LiveToolCatalog(tools, List.of(),
                List.of(new Contribution<>(broken, "tool-broken", sourceLoader)));
        assertEquals(List.of("terminal"), catalog.tools().stream().map(t -> t.spec().name()).toList());
    }
}
