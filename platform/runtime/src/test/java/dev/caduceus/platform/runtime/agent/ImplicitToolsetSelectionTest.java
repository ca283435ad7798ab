package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.caduceus.platform.host.plugin.ToolCatalogImpl;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolSpec;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The implicit toolset of a tool plugin that declares none is offered by default (the catalog side is
 * the host's {@code plugin.ImplicitToolsetTest}).
 */
class ImplicitToolsetSelectionTest {

    private static Tool tool(ToolSpec spec) {
        return new Tool() {
            @Override public ToolSpec spec() { return spec; }
            @Override public ToolResult call(ToolCall call, ToolContext context) { return new ToolResult.Ok("{}"); }
        };
    }

    private static ToolCatalogImpl catalog() {
        var tools = new LinkedHashMap<String, Tool>();
        tools.put("weather", tool(ToolSpec.builder("weather", "Today's weather").build()));
        tools.put("tide", tool(ToolSpec.builder("tide", "Tide times").toolset("sea").build()));
        tools.put("swell", tool(ToolSpec.builder("swell", "Wave height").toolset("sea").build()));
        tools.put("terminal", tool(ToolSpec.builder("terminal", "Run a command").toolset("terminal").build()));
        tools.put("add", tool(ToolSpec.builder("add", "Add").toolset("calc").build()));
        var toolsets = List.of(new ToolsetSpec("terminal", "Shell", List.of("terminal"), List.of()),
                new ToolsetSpec("hermes-api-server", "The default", List.of(), List.of("terminal")),
                new ToolsetSpec("calc", "Arithmetic", List.of("add"), List.of()));
        return new ToolCatalogImpl(tools, toolsets);
    }

    @Test
    void theDefaultToolsetsOfferThemAndADeclaredToolsetStaysOptIn() {
        var catalog = catalog();
        var selection = new ToolSelection(catalog, ToolSelection.DEFAULT, catalog.implicit());
        assertEquals(List.of("swell", "terminal", "tide", "weather"), names(selection.select(List.of())),
                "calc declared its own toolset: it is enabled by naming it in agent.toolsets");
        assertEquals(List.of("weather"), names(selection.select(List.of("weather"))), "a request names it like any");
        var configured = new ToolSelection(catalog, List.of("terminal", "sea"), catalog.implicit());
        configured.checkConfigured();
        assertEquals(List.of("swell", "terminal", "tide"), names(configured.select(List.of())),
                "an explicit agent.toolsets is exactly what it says");
    }

    private static List<String> names(List<Tool> tools) {
        return tools.stream().map(t -> t.spec().name()).toList();
    }
}
