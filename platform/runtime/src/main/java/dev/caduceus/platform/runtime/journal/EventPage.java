package dev.caduceus.platform.runtime.journal;

import dev.caduceus.spi.agent.JournalEntry;
import java.util.List;

/**
 * What one read of an {@link EventLog} returns: committed entries in {@code seq} order, and whether
 * nothing will ever follow them ({@code end}: the run is over and the cursor is at its terminal
 * event, or the run is unknown). An empty page that is not the end means the wait timed out.
 * Immutable.
 */
public record EventPage(List<JournalEntry> entries, boolean end) {
    static final EventPage TIMED_OUT = new EventPage(List.of(), false);
    static final EventPage END = new EventPage(List.of(), true);

    public EventPage {
        entries = List.copyOf(entries);
    }
}
