package dev.caduceus.platform.testkit;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** A fixed {@link Deployment}. Immutable (features are copied on read). */
public record FakeDeployment(List<PluginStatus> plugins, List<RouteInfo> routes, ObjectNode featureFlags,
                             String runtimeMode, boolean corsEnabled, FakeToolCatalog catalog) implements Deployment {

    public FakeDeployment {
        plugins = List.copyOf(plugins);
        routes = List.copyOf(routes);
        featureFlags = featureFlags == null ? JsonNodeFactory.instance.objectNode() : featureFlags.deepCopy();
        if (catalog == null) catalog = FakeToolCatalog.empty();
    }

    /** The same deployment without tools. */
    public FakeDeployment(List<PluginStatus> plugins, List<RouteInfo> routes, ObjectNode featureFlags,
                          String runtimeMode, boolean corsEnabled) {
        this(plugins, routes, featureFlags, runtimeMode, corsEnabled, FakeToolCatalog.empty());
    }

    /** This deployment serving {@code tools}. */
    public FakeDeployment withTools(FakeToolCatalog tools) {
        return new FakeDeployment(plugins, routes, featureFlags, runtimeMode, corsEnabled, tools);
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

    @Override public List<Tool> tools() { return catalog.tools(); }

    @Override public Optional<Tool> tool(String name) { return catalog.tool(name); }

    @Override public List<ToolsetSpec> toolsets() { return catalog.toolsets(); }

    @Override public List<dev.caduceus.spi.tool.ToolSource> toolSources() { return List.of(); }


    @Override public Set<String> resolve(String toolset) { return catalog.resolve(toolset); }
}
