package dev.caduceus.platform.plugin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.Deployment;
import java.util.List;

/** The frozen {@link Deployment}: what this process serves. Immutable (features copied on read). */
public record DeploymentView(List<PluginStatus> plugins, List<RouteInfo> routes, ObjectNode featureFlags,
                             java.util.Map<String, ObjectNode> familyFeatures, String runtimeMode, boolean corsEnabled)
        implements Deployment {
    public DeploymentView {
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
}
