package dev.caduceus.plugin.mcp;

import java.util.Set;

/**
 * A server's {@code tools:} filter, as Hermes reads it: a non-empty {@code include} lists the only
 * tools offered (and wins over {@code exclude}); otherwise {@code exclude} lists those left out; the
 * names are the server's own tool names. {@code resources} and {@code prompts} (default true) allow
 * the utility tools of those families when the server has them. Immutable.
 */
record ToolFilter(Set<String> include, Set<String> exclude, boolean resources, boolean prompts) {
    static final ToolFilter ALL = new ToolFilter(Set.of(), Set.of(), true, true);

    ToolFilter {
        include = Set.copyOf(include);
        exclude = Set.copyOf(exclude);
    }

    /** Whether the server's tool {@code name} is offered. */
    boolean allows(String name) {
        if (!include.isEmpty()) return include.contains(name);
        return !exclude.contains(name);
    }
}
