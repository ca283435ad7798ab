package dev.caduceus.platform.testkit;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A fixed {@link Deployment} without tools, {@link FakePlatformContext}'s default. Immutable (features
 * are copied on read). Plugin tests read the real deployment from a {@link TestHost} instead.
 */
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

    @Override public List<Tool> tools() { return List.of(); }

    @Override public Optional<Tool> tool(String name) { return Optional.empty(); }

    @Override public List<ToolsetSpec> toolsets() { return List.of(); }

    @Override public List<dev.caduceus.spi.tool.ToolSource> toolSources() { return List.of(); }


    /** No toolsets: every name is unknown. */
    @Override public Set<String> resolve(String toolset) { throw new IllegalArgumentException("Unknown toolset: " + toolset); }
}
