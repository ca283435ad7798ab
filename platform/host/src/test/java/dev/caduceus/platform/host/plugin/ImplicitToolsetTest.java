package dev.caduceus.platform.host.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolSpec;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A tool plugin need not declare a toolset: its tools are found and offered by default. */
class ImplicitToolsetTest {

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
    void toolsNoToolsetListsGetTheToolsetTheyName() {
        var catalog = catalog();
        assertEquals(Set.of("sea", "weather"), catalog.implicit());
        assertEquals(Set.of("tide", "swell"), catalog.resolve("sea"));
        assertTrue(catalog.toolsets().stream().anyMatch(t -> t.name().equals("weather")), "listed like any toolset");
    }

    @Test
    void theBuilderDefaults() {
        var spec = ToolSpec.builder("weather", "Today's weather").build();
        assertEquals("{\"type\":\"object\",\"properties\":{}}", spec.parameters().toString());
        assertEquals("weather", spec.toolset());
        assertEquals(ToolSpec.DEFAULT_MAX_RESULT_CHARS, spec.maxResultChars());
        assertEquals(List.of(), spec.requiresEnv());
    }
}
