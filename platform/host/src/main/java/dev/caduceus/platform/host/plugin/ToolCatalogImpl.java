package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The frozen {@link ToolCatalog}. Names are already unique ({@link Registries} checked); toolsets
 * naming tools or includes nobody provides are logged once here and resolved away.
 *
 * <p>A tool that no toolset lists and whose {@link dev.caduceus.spi.tool.ToolSpec#toolset()} no
 * plugin defines gets that toolset made for it (an <em>implicit</em> toolset, {@link #implicit()}):
 * a tool plugin need not invent and declare a toolset for its tools to be found and offered.
 *
 * <p>Immutable; thread-safe.
 */
public final class ToolCatalogImpl implements ToolCatalog {
    private static final Logger log = LoggerFactory.getLogger(ToolCatalogImpl.class);

    private final Map<String, Tool> tools;
    private final Map<String, ToolsetSpec> toolsets;
    // Every turn asks for its tools: the lists and each toolset's resolution are computed once.
    private final List<Tool> toolList;
    private final List<ToolsetSpec> toolsetList;
    private final Map<String, Set<String>> resolved = new ConcurrentHashMap<>();
    private final Set<String> implicit;

    /** @param tools by name; every map is copied */
    public ToolCatalogImpl(Map<String, Tool> tools, List<ToolsetSpec> toolsets) {
        this(tools, toolsets, true);
    }

    /**
     * @param logGaps whether to log toolsets naming tools nobody provides (the boot-time catalog does;
     *                one rebuilt when a tool source changed does not repeat it)
     */
    ToolCatalogImpl(Map<String, Tool> tools, List<ToolsetSpec> toolsets, boolean logGaps) {
        this.tools = Collections.unmodifiableMap(new TreeMap<>(tools));
        var sets = new TreeMap<String, ToolsetSpec>();
        toolsets.forEach(t -> sets.put(t.name(), t));
        var listed = new HashSet<String>();
        toolsets.forEach(t -> listed.addAll(t.tools()));
        var made = new TreeMap<String, java.util.List<String>>();
        for (var tool : this.tools.values()) {
            var name = tool.spec().name();
            var set = tool.spec().toolset();
            if (!listed.contains(name) && !sets.containsKey(set))
                made.computeIfAbsent(set, k -> new java.util.ArrayList<>()).add(name);
        }
        made.forEach((set, names) -> sets.put(set, new ToolsetSpec(set, "The " + set + " tools (declared by the tools)",
                names, List.of())));
        this.implicit = Collections.unmodifiableSet(new java.util.TreeSet<>(made.keySet()));
        this.toolsets = Collections.unmodifiableMap(sets);
        this.toolList = List.copyOf(this.tools.values());
        this.toolsetList = List.copyOf(this.toolsets.values());
        if (logGaps) logGaps();
    }

    private void logGaps() {
        for (var set : toolsets.values()) {
            for (var tool : set.tools())
                if (!tools.containsKey(tool))
                    log.info("Toolset '{}' names tool '{}', which no plugin provides; it is left out", set.name(), tool);
            for (var include : set.includes())
                if (!toolsets.containsKey(include))
                    log.info("Toolset '{}' includes toolset '{}', which no plugin provides; it is left out",
                            set.name(), include);
        }
    }

    /** The toolsets made for tools no plugin's toolset lists (see the class comment), by name. */
    public Set<String> implicit() {
        return implicit;
    }

    @Override
    public List<Tool> tools() {
        return toolList;
    }

    @Override
    public Optional<Tool> tool(String name) {
        return Optional.ofNullable(tools.get(name));
    }

    @Override
    public List<ToolsetSpec> toolsets() {
        return toolsetList;
    }

    @Override
    public Set<String> resolve(String toolset) {
        if (!toolsets.containsKey(toolset)) throw new IllegalArgumentException("unknown toolset: " + toolset);
        return resolved.computeIfAbsent(toolset, this::expand);
    }

    private Set<String> expand(String toolset) {
        var names = new LinkedHashSet<String>();
        var seen = new HashSet<String>();
        var pending = new ArrayDeque<String>();
        pending.add(toolset);
        while (!pending.isEmpty()) {
            var set = toolsets.get(pending.poll());
            if (set == null || !seen.add(set.name())) continue;
            for (var tool : set.tools()) if (tools.containsKey(tool)) names.add(tool);
            pending.addAll(set.includes());
        }
        return Collections.unmodifiableSet(names);
    }
}
