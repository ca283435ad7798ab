package dev.caduceus.platform.testkit;

import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** The tools of a {@link FakeDeployment}: fixed lists, with the same resolution rules as the host's. Immutable. */
public record FakeToolCatalog(List<Tool> tools, List<ToolsetSpec> toolsets) {

    public FakeToolCatalog {
        tools = tools.stream().sorted(Comparator.comparing(t -> t.spec().name())).toList();
        toolsets = toolsets.stream().sorted(Comparator.comparing(ToolsetSpec::name)).toList();
    }

    public static FakeToolCatalog empty() {
        return new FakeToolCatalog(List.of(), List.of());
    }

    public Optional<Tool> tool(String name) {
        return tools.stream().filter(t -> t.spec().name().equals(name)).findFirst();
    }

    public Set<String> resolve(String toolset) {
        var result = new TreeSet<String>();
        var seen = new HashSet<String>();
        var queue = new ArrayDeque<String>(List.of(toolset));
        while (!queue.isEmpty()) {
            var name = queue.poll();
            if (!seen.add(name)) continue;
            var spec = toolsets.stream().filter(t -> t.name().equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("Unknown toolset: " + name));
            spec.tools().stream().filter(t -> tool(t).isPresent()).forEach(result::add);
            queue.addAll(spec.includes());
        }
        return result;
    }
}
