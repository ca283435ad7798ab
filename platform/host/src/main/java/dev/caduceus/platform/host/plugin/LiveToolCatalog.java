package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolSource;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalog as it is now: the tools and toolsets the plugins contributed at boot, plus those of
 * the {@linkplain ToolSource tool sources} (MCP servers) at this moment. Each question asks every
 * source for its snapshot (a volatile read); when one changed, the merged catalog is rebuilt once and
 * kept until the next change. A source's tool or toolset whose name is taken (by a boot-time
 * contribution or an earlier source) is left out and logged once.
 *
 * <p>Thread-safe.
 */
public final class LiveToolCatalog implements ToolCatalog {
    private static final Logger log = LoggerFactory.getLogger(LiveToolCatalog.class);

    private final ToolCatalogImpl fixed;
    private final Map<String, Tool> fixedTools;
    private final List<ToolsetSpec> fixedToolsets;
    private final Map<String, ClassLoader> fixedLoaders;
    private final List<Contribution<ToolSource>> sources;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private volatile Merged merged;

    /** What the catalog was rebuilt from (the sources' snapshots, by identity) and the result. */
    private record Merged(List<ToolSource.Snapshot> basis, ToolCatalogImpl catalog, Map<String, ClassLoader> loaders) {}

    /**
     * @param tools   the boot-time tools by name, with their plugins' loaders
     * @param sources the tool sources, in start order
     */
    LiveToolCatalog(Map<String, Contribution<Tool>> tools, List<ToolsetSpec> toolsets, List<Contribution<ToolSource>> sources) {
        this.fixedTools = new LinkedHashMap<>();
        this.fixedLoaders = new HashMap<>();
        tools.forEach((name, c) -> {
            fixedTools.put(name, c.value());
            fixedLoaders.put(name, c.classLoader());
        });
        this.fixedToolsets = List.copyOf(toolsets);
        this.fixed = new ToolCatalogImpl(fixedTools, fixedToolsets);
        this.sources = List.copyOf(sources);
        this.merged = new Merged(List.of(), fixed, Map.copyOf(fixedLoaders));
    }

    /** The catalog of the boot-time contributions only (implicit toolsets are computed there). */
    ToolCatalogImpl fixed() {
        return fixed;
    }

    /** The tool sources, in start order. */
    public List<Contribution<ToolSource>> sources() {
        return sources;
    }

    /** The class loader to call tool {@code name} with: its plugin's, or null when no plugin has it now. */
    public ClassLoader loaderOf(String name) {
        return current().loaders().get(name);
    }

    private Merged current() {
        var last = merged;
        if (sources.isEmpty() || unchanged(last.basis())) return last; // asked several times a turn: no list then
        var snapshots = new ArrayList<ToolSource.Snapshot>(sources.size());
        for (var source : sources) snapshots.add(snapshot(source));
        var rebuilt = rebuild(snapshots);
        merged = rebuilt;
        return rebuilt;
    }

    /** Whether every source's snapshot now is the one {@code basis} holds for it. */
    private boolean unchanged(List<ToolSource.Snapshot> basis) {
        if (basis.size() != sources.size()) return false;
        for (int i = 0; i < basis.size(); i++) if (snapshot(sources.get(i)) != basis.get(i)) return false;
        return true;
    }

    private ToolSource.Snapshot snapshot(Contribution<ToolSource> source) {
        try {
            var snapshot = PluginCalls.with(source.classLoader(), source.value()::snapshot);
            return snapshot == null ? ToolSource.Snapshot.empty() : snapshot;
        } catch (Exception | LinkageError e) {
            if (warned.add("snapshot:" + source.pluginId()))
                log.warn("Tool source of plugin '{}' failed to list its tools; they are left out", source.pluginId(), e);
            return ToolSource.Snapshot.empty();
        }
    }

    private Merged rebuild(List<ToolSource.Snapshot> snapshots) {
        var tools = new LinkedHashMap<>(fixedTools);
        var loaders = new HashMap<>(fixedLoaders);
        var toolsets = new ArrayList<>(fixedToolsets);
        var toolsetNames = new java.util.HashSet<String>();
        fixedToolsets.forEach(t -> toolsetNames.add(t.name()));
        fixed.implicit().forEach(toolsetNames::add);
        for (int i = 0; i < snapshots.size(); i++) {
            var source = sources.get(i);
            var snapshot = snapshots.get(i);
            for (var tool : snapshot.tools()) {
                String name = tool.spec().name();
                if (tools.putIfAbsent(name, tool) == null) loaders.put(name, source.classLoader());
                else if (warned.add("tool:" + name))
                    log.warn("Tool source of plugin '{}' offers tool '{}', whose name is taken; it is left out",
                            source.pluginId(), name);
            }
            for (var toolset : snapshot.toolsets()) {
                if (toolsetNames.add(toolset.name())) toolsets.add(toolset);
                else if (warned.add("toolset:" + toolset.name()))
                    log.warn("Tool source of plugin '{}' offers toolset '{}', whose name is taken; it is left out",
                            source.pluginId(), toolset.name());
            }
        }
        return new Merged(List.copyOf(snapshots), new ToolCatalogImpl(tools, toolsets, false),
                Map.copyOf(loaders));
    }

    @Override
    public ToolCatalog now() {
        return current().catalog();
    }

    @Override
    public List<Tool> tools() {
        return current().catalog().tools();
    }

    @Override
    public Optional<Tool> tool(String name) {
        return current().catalog().tool(name);
    }

    @Override
    public List<ToolsetSpec> toolsets() {
        return current().catalog().toolsets();
    }

    @Override
    public Set<String> resolve(String toolset) {
        return current().catalog().resolve(toolset);
    }
}
