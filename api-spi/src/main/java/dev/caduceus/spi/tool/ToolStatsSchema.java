package dev.caduceus.spi.tool;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A fixed set of tool names that {@code caduceus batch --tool_stats_schema <name>} lists in every
 * trajectory's {@code tool_stats} and {@code tool_error_counts}, so that trajectories
 * from installations with different tools share one column set (for example Hermes Agent's). Pure
 * data; immutable.
 *
 * @param name      the schema's name, as given to {@code --tool_stats_schema}
 * @param source    where the names come from (project, version or commit), shown in logs and docs
 * @param toolNames the tool names; their order does not matter (the runner sorts them)
 */
public record ToolStatsSchema(String name, String source, List<String> toolNames) {
    public ToolStatsSchema {
        requireNonNull(name, "name");
        requireNonNull(source, "source");
        toolNames = List.copyOf(toolNames);
    }
}
