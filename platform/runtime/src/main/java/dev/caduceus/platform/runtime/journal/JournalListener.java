package dev.caduceus.platform.runtime.journal;

import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.store.Sql;
import java.util.List;

/**
 * Told of each group commit of the run journal ({@link JournalWriter}): {@link #committing} inside its
 * transaction, after the entries and run rows are written, so that what it writes commits with them or not at
 * all; {@link #committed} after the commit. Called on the journal's thread; keep it short.
 */
public interface JournalListener {
    /** Nobody listens. */
    JournalListener NONE = new JournalListener() {
        @Override
        public void committing(Sql sql, List<JournalEntry> entries) {}

        @Override
        public void committed() {}
    };

    /** In the commit's transaction (run again if the commit is retried). */
    void committing(Sql sql, List<JournalEntry> entries);

    /** After a commit succeeded. */
    void committed();
}
