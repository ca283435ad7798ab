package dev.caduceus.platform.host.plugin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The frozen {@link Deployment}: what this process serves. Immutable (features copied on read). */
public record DeploymentView(List<PluginStatus> plugins, List<RouteInfo> routes, ObjectNode featureFlags,
                             java.util.Map<String, ObjectNode> familyFeatures, String runtimeMode, boolean corsEnabled,
                             ToolCatalog catalog, List<dev.caduceus.spi.tool.ToolSource> toolSources)
        implements Deployment {
    public DeploymentView {
        toolSources = List.copyOf(toolSources);
        plugins = List.copyOf(plugins);
        routes = List.copyOf(routes);
        featureFlags = featureFlags.deepCopy();
        var copies = new java.util.LinkedHashMap<String, ObjectNode>();
        familyFeatures.forEach((family, flags) -> copies.put(family, flags.deepCopy()));
        familyFeatures = java.util.Collections.unmodifiableMap(copies);
    }

    @Override
    public ObjectNode features(java.util.function.Predicate<String> family) {
        var merged = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        familyFeatures.forEach((id, flags) -> {
            if (family.test(id)) Registries.merge(merged, flags);
        });
        return merged;
    }

    @Override
    public ObjectNode features() {
        return featureFlags.deepCopy();
    }

    @Override
    public List<Tool> tools() {
        return catalog.tools();
    }

    @Override
    public Optional<Tool> tool(String name) {
        return catalog.tool(name);
    }

    @Override
    public List<ToolsetSpec> toolsets() {
        return catalog.toolsets();
    }

    @Override
    public Set<String> resolve(String toolset) {
        return catalog.resolve(toolset);
    }
}
