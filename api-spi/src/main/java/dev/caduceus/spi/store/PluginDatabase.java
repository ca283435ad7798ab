package dev.caduceus.spi.store;

import java.util.List;

/**
 * A plugin's access to the host database. Its migrations
 * ({@code db/migration/<plugin-id>/<dialect>/V<n>__<what>.sql} in the jar, {@code sqlite} or
 * {@code postgresql}: the folder of the host's {@link #dialect()}) have been applied before
 * {@code start}. On PostgreSQL the plugin's tables live in a schema of their own, which is the
 * {@code search_path} of its work, so its SQL names its tables without a schema on both engines.
 *
 * <p>Threading: thread-safe; both methods block the caller until the work is done.
 * {@link #write} runs in one transaction that behaves as if serialized with every other write (SQLite:
 * the host's single writer; PostgreSQL: a SERIALIZABLE transaction, run again when it conflicts with
 * another node's, so the work may run more than once): keep it short, touch only the database, and
 * never call out (HTTP, model, tools) from inside it. {@link #read}
 * runs on a pooled reader connection; never hold it while waiting for something else.
 *
 * <p>Exceptions thrown by the work roll back the transaction and are rethrown wrapped in
 * {@link StoreException} (unless already one).
 */
public interface PluginDatabase {

    <T> T read(Work<T> work);

    <T> T write(Work<T> work);

    /**
     * Runs one {@code SELECT} on its own and maps its rows: what {@code read(sql -> sql.query(statement, mapper, args))}
     * answers, without a transaction around it. On PostgreSQL that is one round trip to the server where {@link #read}
     * takes two (the statement, then the commit); a statement always sees one snapshot. Only for a statement that reads:
     * on PostgreSQL it runs on a connection that could write.
     */
    default <T> List<T> query(String statement, Sql.RowMapper<T> mapper, Object... args) {
        return read(sql -> sql.query(statement, mapper, args));
    }

    Dialect dialect();

    /** A unit of database work run by {@link #read} or {@link #write}. */
    @FunctionalInterface
    interface Work<T> {
        T run(Sql sql) throws Exception;
    }

    /** The SQL dialect of the host database. */
    enum Dialect { SQLITE, POSTGRESQL }

    /**
     * A database failure. Unchecked. {@link #unavailable()} tells a failure of the database itself (the
     * server down or unreachable) from one of the work: the HTTP layer answers the first with 503 and
     * the client may retry; the host's pools reconnect by themselves.
     */
    final class StoreException extends RuntimeException {
        private final boolean unavailable;

        public StoreException(String message, Throwable cause) {
            this(message, cause, false);
        }

        public StoreException(String message, Throwable cause, boolean unavailable) {
            super(message, cause);
            this.unavailable = unavailable;
        }

        /** True when the database could not be reached, so nothing was done; worth retrying later. */
        public boolean unavailable() {
            return unavailable;
        }
    }
}
