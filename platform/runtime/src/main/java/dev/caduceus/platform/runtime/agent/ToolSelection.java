package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.tool.Tool;
import dev.caduceus.platform.host.plugin.ToolCatalog;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which tools a turn offers: the request's toolsets, else {@code agent.toolsets},
 * resolved through the catalog; {@code all} and {@code *} mean every tool; only available tools,
 * sorted by name.
 *
 * <p>Unknown toolsets: while no plugin contributes toolsets, the default {@code [hermes-api-server]}
 * (when the catalog does not know it) offers every loaded tool — the "default: every loaded
 * tool". Any other unknown name fails closed: it adds no tool and is logged. A non-default
 * {@code agent.toolsets} naming an unknown toolset stops the boot ({@link #checkConfigured}).
 * With the default {@code agent.toolsets}, the {@code byDefault} toolsets are offered too: the
 * implicit toolsets of tool plugins that declare none (so a dropped-in tool is offered as it is).
 * The names a request's toolsets resolve to are kept while the catalog stays the same ({@link ToolCatalog#now}):
 * every turn asks with the same toolsets, and resolving them built a few sets and asked every tool source for its
 * snapshot once per tool. Which of them are available is asked at every turn.
 * Thread-safe.
 */
public final class ToolSelection {
    /** The default of {@code agent.toolsets}. */
    public static final List<String> DEFAULT = List.of("hermes-api-server");
    private static final Logger LOG = LoggerFactory.getLogger(ToolSelection.class);

    private final ToolCatalog catalog;
    private final List<String> configured;
    private final Set<String> byDefault;
    /** The last resolution: in catalog {@code at}, toolsets {@code requested} named these tools. */
    private record Resolved(ToolCatalog at, List<String> requested, List<String> names) {}
    private volatile Resolved last;

    public ToolSelection(ToolCatalog catalog, List<String> configured, Set<String> byDefault) {
        this.catalog = java.util.Objects.requireNonNull(catalog, "catalog");
        this.configured = List.copyOf(configured);
        this.byDefault = Set.copyOf(byDefault);
    }

    public ToolCatalog catalog() {
        return catalog;
    }

    /** The configured toolsets ({@code agent.toolsets}). */
    public List<String> configured() {
        return configured;
    }

    /** The toolsets offered too while {@code agent.toolsets} is the default. */
    public Set<String> byDefault() {
        return byDefault;
    }

    /** A selection with no extra toolsets offered by default. */
    public ToolSelection(ToolCatalog catalog, List<String> configured) {
        this(catalog, configured, Set.of());
    }

    /** Throws when a non-default {@code agent.toolsets} names a toolset the catalog does not know. */
    public void checkConfigured() {
        checkConfigured(List.of());
    }

    /**
     * As {@link #checkConfigured()}, except that while plugins are disabled ({@code notStarted}, by id)
     * an unknown toolset is probably one of theirs: then it is a warning that says so, and the boot
     * goes on without those tools (disabling a plugin needs one edit, not two).
     *
     * @return the warnings to log
     */
    public List<String> checkConfigured(List<String> notStarted) {
        if (configured.equals(DEFAULT)) return List.of();
        var known = known(catalog);
        var warnings = new ArrayList<String>();
        for (var name : configured) {
            if (name.equals("all") || name.equals("*") || known.contains(name)) continue;
            if (notStarted.isEmpty())
                throw new IllegalArgumentException("Unknown toolset '" + name + "' in agent.toolsets (known: "
                        + String.join(", ", known) + ")");
            warnings.add("agent.toolsets names '" + name + "', which no started plugin provides (not started: "
                    + String.join(", ", notStarted) + "); its tools are not offered");
        }
        return List.copyOf(warnings);
    }

    /** The available tools for a turn requesting {@code requested} (empty: the configured toolsets), by name. */
    public List<Tool> select(List<String> requested) {
        var now = catalog.now();
        var memo = last;
        List<String> chosen;
        if (memo != null && memo.at() == now && memo.requested().equals(requested)) {
            chosen = memo.names();
        } else {
            chosen = List.copyOf(resolve(now, requested));
            last = new Resolved(now, List.copyOf(requested), chosen);
        }
        var tools = new ArrayList<Tool>(chosen.size());
        for (var name : chosen) now.tool(name).filter(ToolSelection::available).ifPresent(tools::add);
        return List.copyOf(tools);
    }

    private Set<String> resolve(ToolCatalog catalog, List<String> requested) {
        var names = requested.isEmpty() ? configured : requested;
        var known = known(catalog);
        var chosen = new TreeSet<String>();
        if (names == configured && configured.equals(DEFAULT))
            for (var set : byDefault) if (known.contains(set)) chosen.addAll(catalog.resolve(set));
        for (var name : names) {
            if (name.equals("none")) continue; // a turn limited to no tools (a key whose toolsets it did not ask for)
            if (name.equals("all") || name.equals("*") || (names == configured && configured.equals(DEFAULT)
                    && !known.contains(name))) {
                catalog.tools().forEach(t -> chosen.add(t.spec().name()));
            } else if (known.contains(name)) {
                chosen.addAll(catalog.resolve(name));
            } else {
                LOG.warn("Unknown toolset '{}' requested; it adds no tools", name);
            }
        }
        return chosen;
    }

    private static Set<String> known(ToolCatalog catalog) {
        var known = new TreeSet<String>();
        catalog.toolsets().stream().map(ToolsetSpec::name).forEach(known::add);
        return known;
    }

    private static boolean available(Tool tool) {
        try {
            return tool.available();
        } catch (RuntimeException e) {
            LOG.warn("Tool '{}' failed its availability check; it is left out", tool.spec().name(), e);
            return false;
        }
    }
}
