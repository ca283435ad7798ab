package dev.caduceus.testkit;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.Deployment;
import java.util.List;

/** A fixed {@link Deployment}. Immutable (features are copied on read). */
public record FakeDeployment(List<PluginStatus> plugins, List<RouteInfo> routes, ObjectNode featureFlags,
                             String runtimeMode, boolean corsEnabled) implements Deployment {

    public FakeDeployment {
        plugins = List.copyOf(plugins);
        routes = List.copyOf(routes);
        featureFlags = featureFlags == null ? JsonNodeFactory.instance.objectNode() : featureFlags.deepCopy();
    }

    /** No plugins, no routes, local runtime, no CORS. */
    public static FakeDeployment empty() {
        return new FakeDeployment(List.of(), List.of(), null, "local", false);
    }

    @Override
    public ObjectNode features() {
        return featureFlags.deepCopy();
    }

    /** A fake has no families: every flag, whatever {@code family} accepts. */
    @Override
    public ObjectNode features(java.util.function.Predicate<String> family) {
        return featureFlags.deepCopy();
    }
}
