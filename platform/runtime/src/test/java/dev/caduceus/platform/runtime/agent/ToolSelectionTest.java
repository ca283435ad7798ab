package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.caduceus.platform.host.plugin.ToolCatalog;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolSpec;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A selection remembers what toolsets resolve to only while the catalog stays the same, and asks availability every turn. */
class ToolSelectionTest {
    private static List<String> names(List<Tool> tools) {
        return tools.stream().map(t -> t.spec().name()).toList();
    }

    /** A live catalog: each question goes to whichever immutable catalog is current, as MCP servers come and go. */
    private static ToolCatalog live(AtomicReference<ToolCatalog> current) {
        return new ToolCatalog() {
            @Override
            public List<Tool> tools() {
                return current.get().tools();
            }

            @Override
            public Optional<Tool> tool(String name) {
                return current.get().tool(name);
            }

            @Override
            public List<ToolsetSpec> toolsets() {
                return current.get().toolsets();
            }

            @Override
            public Set<String> resolve(String toolset) {
                return current.get().resolve(toolset);
            }

            @Override
            public ToolCatalog now() {
                return current.get();
            }
        };
    }

    @Test
    void aToolAddedOrRemovedByASourceIsOfferedOrDroppedAtTheNextTurn() {
        var a = Tools.tool("a", (c, x) -> new ToolResult.Ok(""));
        var b = Tools.tool("b", (c, x) -> new ToolResult.Ok(""));
        var current = new AtomicReference<>(Tools.catalog(a));
        var selection = new ToolSelection(live(current), ToolSelection.DEFAULT);
        assertEquals(List.of("a"), names(selection.select(List.of())));
        assertEquals(List.of("a"), names(selection.select(List.of())));
        current.set(Tools.catalog(a, b)); // a source listed a new tool
        assertEquals(List.of("a", "b"), names(selection.select(List.of())));
        assertEquals(List.of("a", "b"), names(selection.select(List.of("test"))));
        current.set(Tools.catalog(b)); // and one went away
        assertEquals(List.of("b"), names(selection.select(List.of())));
        assertEquals(List.of("b"), names(selection.select(List.of("test"))));
    }

    @Test
    void eachRequestsToolsetsAreResolvedForThatRequestAndAvailabilityIsAskedEveryTurn() {
        var up = new AtomicBoolean(true);
        var flaky = Tools.tool("flaky", (c, x) -> new ToolResult.Ok(""));
        var sometimes = new Tool() {
            @Override
            public ToolSpec spec() {
                return flaky.spec();
            }

            @Override
            public ToolResult call(ToolCall call, ToolContext ctx) throws Exception {
                return flaky.call(call, ctx);
            }

            @Override
            public boolean available() {
                return up.get();
            }
        };
        var other = Tools.tool("other", (c, x) -> new ToolResult.Ok(""));
        var selection = new ToolSelection(Tools.catalog(sometimes, other), ToolSelection.DEFAULT);
        assertEquals(List.of("flaky", "other"), names(selection.select(List.of())));
        assertEquals(List.of(), names(selection.select(List.of("none"))));
        up.set(false);
        assertEquals(List.of("other"), names(selection.select(List.of())));
        assertEquals(List.of("other"), names(selection.select(List.of("test"))));
        up.set(true);
        assertEquals(List.of("flaky", "other"), names(selection.select(List.of())));
    }
}
