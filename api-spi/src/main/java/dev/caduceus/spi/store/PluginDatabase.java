package dev.caduceus.spi.store;

/**
 * A plugin's access to the host database. Its migrations
 * ({@code db/migration/<plugin-id>/sqlite/V<n>__<what>.sql} in the jar) have been applied before
 * {@code start}.
 *
 * <p>Threading: thread-safe; both methods block the caller until the work is done.
 * {@link #write} runs on the host's single writer in one IMMEDIATE transaction, serialized with every
 * other write: keep it short and never call out (HTTP, model, tools) from inside it. {@link #read}
 * runs on a pooled reader connection; never hold it while waiting for something else.
 *
 * <p>Exceptions thrown by the work roll back the transaction and are rethrown wrapped in
 * {@link StoreException} (unless already one).
 */
public interface PluginDatabase {

    <T> T read(Work<T> work);

    <T> T write(Work<T> work);

    Dialect dialect();

    /** A unit of database work run by {@link #read} or {@link #write}. */
    @FunctionalInterface
    interface Work<T> {
        T run(Sql sql) throws Exception;
    }

    /** The SQL dialect of the host database. */
    enum Dialect { SQLITE, POSTGRESQL }

    /** A database failure. Unchecked. */
    final class StoreException extends RuntimeException {
        public StoreException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
