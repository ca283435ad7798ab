package dev.caduceus.platform.plugin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.Deployment;
import java.util.List;

/** The frozen {@link Deployment}: what this process serves. Immutable (features copied on read). */
public record DeploymentView(List<PluginStatus> plugins, List<RouteInfo> routes, ObjectNode featureFlags,
                             String runtimeMode, boolean corsEnabled) implements Deployment {
    public DeploymentView {
        plugins = List.copyOf(plugins);
        routes = List.copyOf(routes);
        featureFlags = featureFlags.deepCopy();
    }

    @Override
    public ObjectNode features() {
        return featureFlags.deepCopy();
    }
}
