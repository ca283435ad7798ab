package dev.caduceus.platform.runtime.journal;

import dev.caduceus.spi.store.Sql;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;

/**
 * How the journals of several nodes sharing one database wake each other: a node that commits events or
 * a status change of a run {@linkplain #announce announces} it inside that transaction, and a node whose
 * reader follows a run live elsewhere {@linkplain #watch watches} it. An announcement is only a wake-up
 * (the reader then reads the run's rows, which stay the truth), so a spurious or coalesced one is harmless
 * and a lost one costs at most the reader's own timeout.
 *
 * <p>Threading: thread-safe.
 */
public interface RunFeed {
    /** One node alone on its database (SQLite): nothing to announce, nobody else to watch. */
    RunFeed LOCAL = new RunFeed() {
        @Override
        public CompletableFuture<Void> watch(String runId) {
            return null;
        }

        @Override
        public void announce(Sql sql, Collection<String> runIds) {
            // no other node
        }
    };

    /**
     * A future completed at the next change of {@code runId} announced by any node after this call (or
     * spuriously); null when there are no other nodes.
     */
    CompletableFuture<Void> watch(String runId);

    /** Inside a write: tells the other nodes that these runs changed (delivered when the write commits). */
    void announce(Sql sql, Collection<String> runIds);
}
