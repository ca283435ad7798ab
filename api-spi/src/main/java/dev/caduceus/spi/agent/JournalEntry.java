package dev.caduceus.spi.agent;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * One committed journal entry: a run event with its dense per-run sequence number (from 1).
 * Immutable.
 */
public record JournalEntry(String runId, long seq, Instant timestamp, RunEvent event) {
    public JournalEntry {
        requireNonNull(runId, "runId");
        requireNonNull(timestamp, "timestamp");
        requireNonNull(event, "event");
        if (seq < 1) throw new IllegalArgumentException("seq must be >= 1");
    }
}
