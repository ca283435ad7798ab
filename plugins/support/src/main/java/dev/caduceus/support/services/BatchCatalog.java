package dev.caduceus.support.services;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The data {@code caduceus batch} samples and counts with, offered by the plugin that ships it
 * ({@code toolsets-hermes}): toolset distributions and fixed tool-stats column sets. Found with
 * {@code service(BatchCatalog.class)} by the batch application and by {@code GET /v1/capabilities};
 * without it a deployment has no distributions.
 *
 * <p>Threading: thread-safe; the lists do not change after boot.
 */
public interface BatchCatalog {

    /** The toolset sampling distributions, any order. */
    List<Distribution> distributions();

    /** The tool-stats schemas ({@code --tool_stats_schema}), any order. */
    List<ToolStatsSchema> toolStatsSchemas();

    /**
     * A toolset sampling distribution: each toolset is enabled independently with its percent chance
     * (0–100). The order of {@code toolsetPercent} is kept (it is the sampling order, the tie-breaker
     * and the order of {@code toolsets_used}). Immutable.
     */
    record Distribution(String name, String description, Map<String, Integer> toolsetPercent) {
        public Distribution {
            requireNonNull(name, "name");
            requireNonNull(description, "description");
            toolsetPercent = Collections.unmodifiableMap(new LinkedHashMap<>(toolsetPercent));
            for (var e : toolsetPercent.entrySet())
                if (e.getValue() == null || e.getValue() < 0 || e.getValue() > 100)
                    throw new IllegalArgumentException("percent missing or out of range for " + e.getKey() + ": " + e.getValue());
        }
    }

    /**
     * A fixed set of tool names that {@code caduceus batch --tool_stats_schema <name>} lists in every
     * trajectory's {@code tool_stats} and {@code tool_error_counts}, so that trajectories from
     * installations with different tools share one column set. Immutable.
     *
     * @param name      the schema's name, as given to {@code --tool_stats_schema}
     * @param source    where the names come from (project, version or commit), shown in logs and docs
     * @param toolNames the tool names; their order does not matter (the runner sorts them)
     */
    record ToolStatsSchema(String name, String source, List<String> toolNames) {
        public ToolStatsSchema {
            requireNonNull(name, "name");
            requireNonNull(source, "source");
            toolNames = List.copyOf(toolNames);
        }
    }
}
