package dev.caduceus.spi.tool;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/**
 * A toolset sampling distribution for batch runs: each toolset is enabled independently with its
 * percent chance (0–100). Pure data; immutable.
 */
public record DistributionSpec(String name, String description, Map<String, Integer> toolsetPercent) {
    public DistributionSpec {
        requireNonNull(name, "name");
        requireNonNull(description, "description");
        toolsetPercent = Map.copyOf(toolsetPercent);
        for (var e : toolsetPercent.entrySet())
            if (e.getValue() < 0 || e.getValue() > 100)
                throw new IllegalArgumentException("percent out of range for " + e.getKey() + ": " + e.getValue());
    }
}
