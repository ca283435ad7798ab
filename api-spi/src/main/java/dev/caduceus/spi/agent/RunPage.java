package dev.caduceus.spi.agent;

import java.util.List;

/** One page of {@link Runs#list}; {@code hasMore} when further runs match. Immutable. */
public record RunPage(List<RunRecord> runs, boolean hasMore) {
    public RunPage {
        runs = List.copyOf(runs);
    }
}
