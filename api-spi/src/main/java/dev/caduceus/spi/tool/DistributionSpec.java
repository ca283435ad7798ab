package dev.caduceus.spi.tool;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A toolset sampling distribution for batch runs: each toolset is enabled independently with its
 * percent chance (0–100). The order of {@code toolsetPercent} is kept (it is the
 * sampling order, the tie-breaker and the order of {@code toolsets_used}). Pure data; immutable.
 */
public record DistributionSpec(String name, String description, Map<String, Integer> toolsetPercent) {
    public DistributionSpec {
        requireNonNull(name, "name");
        requireNonNull(description, "description");
        toolsetPercent = Collections.unmodifiableMap(new LinkedHashMap<>(toolsetPercent));
        for (var e : toolsetPercent.entrySet())
            if (e.getValue() == null) throw new IllegalArgumentException("percent missing for " + e.getKey());
        for (var e : toolsetPercent.entrySet())
            if (e.getValue() < 0 || e.getValue() > 100)
                throw new IllegalArgumentException("percent out of range for " + e.getKey() + ": " + e.getValue());
    }
}
