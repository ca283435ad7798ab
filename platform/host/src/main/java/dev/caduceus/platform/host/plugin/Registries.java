package dev.caduceus.platform.host.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.tool.Tool;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * Boot step 6: freezes what the plugins contributed and refuses collisions, naming both plugins:
 * routes (method and template, across families), endpoint family ids, tool and toolset
 * names, model provider and agent runtime ids; and two services of one type
 * ({@link PluginServices}).
 *
 * <p>Immutable after {@link #freeze}; thread-safe. Collisions fail in lenient mode too: by then
 * both plugins have started, and which one to drop is the operator's call.
 */
public final class Registries {
    private final List<PluginRoute> routes;
    private final List<Contribution<EndpointFamily>> endpointFamilies;
    private final List<Contribution<Tool>> toolEntries;
    private final LiveToolCatalog tools;
    private final java.util.Set<String> offeredByDefault;
    private final ObjectNode features;
    private final Map<String, ObjectNode> familyFeatures;
    private final List<Contribution<ModelProvider>> modelProviders;
    private final List<Contribution<AgentRuntime>> agentRuntimes;
    private final PluginServices services;
    private final Map<String, List<String>> kinds;
    private final List<PluginReport> plugins;

    private Registries(Builder b, BootedPlugins booted) {
        this.routes = List.copyOf(b.routes.values());
        this.endpointFamilies = booted.contributions().endpoints();
        this.toolEntries = List.copyOf(b.tools.values());
        this.tools = new LiveToolCatalog(b.tools, booted.contributions().toolsets().stream().map(Contribution::value).toList(),
                booted.contributions().toolSources());
        var byDefault = new java.util.TreeSet<>(tools.fixed().implicit());
        byDefault.addAll(b.sourceDefaults);
        this.offeredByDefault = java.util.Collections.unmodifiableSet(byDefault);
        this.features = b.features;
        this.familyFeatures = Map.copyOf(b.familyFeatures);
        this.modelProviders = booted.contributions().modelProviders();
        this.agentRuntimes = booted.contributions().agentRuntimes();
        this.services = b.services;
        var byPlugin = new LinkedHashMap<String, List<String>>();
        booted.started().forEach(p -> byPlugin.put(p.id(), p.kinds()));
        this.kinds = Map.copyOf(byPlugin);
        this.plugins = booted.plugins();
    }

    /** Checks and freezes {@code booted}'s contributions; throws {@link PluginBootException} on a collision. */
    public static Registries freeze(BootedPlugins booted) {
        var b = new Builder();
        var c = booted.contributions();
        var familyIds = new HashMap<String, Contribution<?>>();
        for (var family : c.endpoints()) {
            var id = call(family, "id()", () -> family.value().id());
            unique("endpoint family id", id, family, familyIds);
            var basePath = call(family, "basePath() of family '" + id + "'", () -> family.value().basePath());
            var collector = new RouteCollector(id, basePath, family.pluginId(), family.classLoader());
            call(family, "routes() of family '" + id + "'", () -> { family.value().routes(collector); return null; });
            for (var route : collector.close()) {
                var other = b.routes.putIfAbsent(RouteCollector.key(route), route);
                if (other != null)
                    throw new PluginBootException("duplicate route " + route.method() + " " + route.template()
                            + ": family '" + other.familyId() + "' of plugin '" + other.pluginId()
                            + "' and family '" + id + "' of plugin '" + route.pluginId() + "'");
            }
            var features = call(family, "features() of family '" + id + "'", () -> family.value().features());
            if (features != null) {
                merge(b.features, features);
                b.familyFeatures.put(id, features.deepCopy());
            }
        }
        var toolOwners = new HashMap<String, Contribution<?>>();
        for (var tool : c.tools()) {
            var name = call(tool, "spec()", () -> tool.value().spec().name());
            unique("tool name", name, tool, toolOwners);
            b.tools.put(name, tool);
        }
        uniqueAll("toolset name", c.toolsets(), t -> t.name());
        var sourceIds = new HashMap<String, Contribution<?>>();
        for (var source : c.toolSources()) {
            unique("tool source id", call(source, "id()", () -> source.value().id()), source, sourceIds);
            var defaults = call(source, "offeredByDefault()", () -> source.value().offeredByDefault());
            if (defaults != null) b.sourceDefaults.addAll(defaults);
        }
        var providerIds = new HashMap<String, Contribution<?>>();
        for (var p : c.modelProviders()) unique("model provider id", call(p, "id()", () -> p.value().id()), p, providerIds);
        var runtimeIds = new HashMap<String, Contribution<?>>();
        for (var r : c.agentRuntimes()) unique("agent runtime id", call(r, "id()", () -> r.value().id()), r, runtimeIds);
        b.services = PluginServices.of(c.services());
        return new Registries(b, booted);
    }

    private static final class Builder {
        final Map<String, PluginRoute> routes = new LinkedHashMap<>();
        final Map<String, Contribution<Tool>> tools = new LinkedHashMap<>();
        final ObjectNode features = JsonNodeFactory.instance.objectNode();
        final Map<String, ObjectNode> familyFeatures = new LinkedHashMap<>();
        PluginServices services = PluginServices.none();
        final java.util.Set<String> sourceDefaults = new java.util.TreeSet<>();
    }

    private static <T> void uniqueAll(String what, List<Contribution<T>> items, Function<T, String> key) {
        var owners = new HashMap<String, Contribution<?>>();
        for (var item : items) unique(what, key.apply(item.value()), item, owners);
    }

    private static void unique(String what, String key, Contribution<?> item, Map<String, Contribution<?>> owners) {
        if (key == null) throw new PluginBootException("plugin '" + item.pluginId() + "' contributed a " + what + " that is null");
        var other = owners.putIfAbsent(key, item);
        if (other != null)
            throw new PluginBootException("duplicate " + what + " '" + key + "': contributed by plugin '"
                    + other.pluginId() + "' and plugin '" + item.pluginId() + "'");
    }

    /** Calls plugin code with the plugin's loader; a failure names the plugin. */
    private static <T> T call(Contribution<?> owner, String what, Callable<T> call) {
        try {
            return PluginCalls.with(owner.classLoader(), call);
        } catch (Exception | LinkageError e) {
            throw new PluginBootException("plugin '" + owner.pluginId() + "' failed in " + what + ": " + e.getMessage(), e);
        }
    }

    /** Deep merge: objects merge key by key, anything else is replaced by the later family's value. */
    /** Deep-merges {@code from} into {@code into} (objects merged key by key, anything else replaced). */
    public static void merge(ObjectNode into, ObjectNode from) {
        for (var entry : from.properties()) {
            JsonNode existing = into.get(entry.getKey());
            if (existing instanceof ObjectNode target && entry.getValue() instanceof ObjectNode source)
                merge(target, source);
            else into.set(entry.getKey(), entry.getValue().deepCopy());
        }
    }

    /** Every route, in registration order; handlers already set the plugin's context class loader. */
    public List<PluginRoute> routes() { return routes; }

    /** The endpoint families, in start order. */
    public List<Contribution<EndpointFamily>> endpointFamilies() { return endpointFamilies; }

    /** The tools and toolsets: those contributed at boot and the tool sources' current ones. */
    public LiveToolCatalog tools() { return tools; }

    /**
     * Toolsets offered with the default {@code agent.toolsets}, like the tools of the default
     * toolset: those made for tools that no plugin's toolset lists (a tool plugin that declares no
     * toolset), and those the tool sources name ({@code mcp}).
     */
    public java.util.Set<String> implicitToolsets() { return offeredByDefault; }

    /** The tool sources (MCP servers and the like), with their owners, in start order. */
    public List<Contribution<dev.caduceus.spi.tool.ToolSource>> toolSources() { return tools.sources(); }

    /** Every tool with its owning plugin and loader (for the dispatcher's context class loader). */
    public List<Contribution<Tool>> toolEntries() { return toolEntries; }

    /** The started families' {@code features()}, merged; a deep copy. */
    public ObjectNode features() { return features.deepCopy(); }

    /** Each started family's {@code features()}, by family id (copies kept by the caller). */
    public Map<String, ObjectNode> familyFeatures() { return familyFeatures; }

    public List<Contribution<ModelProvider>> modelProviders() { return modelProviders; }

    public List<Contribution<AgentRuntime>> agentRuntimes() { return agentRuntimes; }

    /** The services plugins contributed for each other, each bound to its plugin's class loader. */
    public PluginServices services() { return services; }

    /** Per started plugin id, the non-empty contribution kinds. */
    public Map<String, List<String>> kinds() { return kinds; }

    /** Every plugin jar and how it ended up, ordered by id. */
    public List<PluginReport> plugins() { return plugins; }
}
