package dev.caduceus.platform.runtime.agent;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.platform.host.plugin.ToolCatalog;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Test tools for the platform's own tests (the testkit's {@code TestTools} cannot be used here: the
 * testkit depends on the platform).
 */
final class Tools {
    private Tools() {}

    interface Body {
        ToolResult call(ToolCall call, ToolContext ctx) throws Exception;
    }

    static Tool tool(String name, boolean parallelSafe, int maxChars, Body body) {
        return tool(new ToolSpec(name, name + " tool", JsonNodeFactory.instance.objectNode(), "test", List.of(),
                ToolRisk.READ_ONLY, maxChars, parallelSafe, false, null), body);
    }

    /** A parallel-safe tool whose calls may be repeated when a resumed run does not know whether one finished. */
    static Tool repeatable(String name, Body body) {
        return tool(tool(name, true, 100_000, body).spec().withRepeatable(true), body);
    }

    static Tool tool(ToolSpec spec, Body body) {
        return new Tool() {
            @Override
            public ToolSpec spec() {
                return spec;
            }

            @Override
            public ToolResult call(ToolCall call, ToolContext ctx) throws Exception {
                return body.call(call, ctx);
            }
        };
    }

    static Tool tool(String name, Body body) {
        return tool(name, false, 100_000, body);
    }

    /** A catalog of {@code tools} with no toolsets. */
    static ToolCatalog catalog(Tool... tools) {
        var list = List.of(tools).stream().sorted(Comparator.comparing(t -> t.spec().name())).toList();
        return new ToolCatalog() {
            @Override
            public List<Tool> tools() {
                return list;
            }

            @Override
            public Optional<Tool> tool(String name) {
                return list.stream().filter(t -> t.spec().name().equals(name)).findFirst();
            }

            @Override
            public List<ToolsetSpec> toolsets() {
                return List.of(new ToolsetSpec("test", "test tools", list.stream().map(t -> t.spec().name()).toList(),
                        List.of()));
            }

            @Override
            public Set<String> resolve(String toolset) {
                if (!toolset.equals("test")) throw new IllegalArgumentException("unknown toolset: " + toolset);
                var names = new TreeSet<String>();
                list.forEach(t -> names.add(t.spec().name()));
                return names;
            }
        };
    }
}
