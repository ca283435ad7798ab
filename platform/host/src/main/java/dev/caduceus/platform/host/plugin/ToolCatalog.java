package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolsetSpec;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The frozen catalog of every contributed tool and toolset.
 *
 * <p>Thread-safe; {@link #now} is immutable.
 */
public interface ToolCatalog {

    /** Every tool, ordered by name. */
    List<Tool> tools();

    /** A tool by name. */
    Optional<Tool> tool(String name);

    /** Every toolset, ordered by name. */
    List<ToolsetSpec> toolsets();

    /**
     * The names of the tools a toolset resolves to, includes followed, tools no plugin provides left
     * out. Throws {@link IllegalArgumentException} for an unknown toolset (fail closed).
     */
    Set<String> resolve(String toolset);

    /**
     * The catalog as it is at this moment, which does not change: a live catalog's current merge (a new object
     * whenever a tool source changed), an immutable one itself. For callers that ask it several questions in a
     * row, and for those that remember an answer as long as the catalog stays the same object.
     */
    default ToolCatalog now() {
        return this;
    }
}
