package dev.caduceus.platform.host.store;

import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.store.PluginDatabase.StoreException;
import dev.caduceus.spi.store.PluginDatabase.Work;
import dev.caduceus.spi.store.Sql.RowMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * The host database, on one of two engines: {@link SqliteDatabase} (one file, one node; the default) or
 * {@link PostgresDatabase} (a server shared by several nodes). Open one with {@link #open(Path)} or
 * {@link #connect(PostgresTarget, int)}.
 *
 * <p>Every piece of work names its <em>owner</em>: {@link Migrations#PLATFORM} for the host's own tables,
 * a plugin's id for a plugin's. On PostgreSQL each owner has a schema of its own ({@link #schemaOf}); on
 * SQLite all tables share the file, and {@link Migrations} records and checks which owner made which.
 *
 * <p>Threading: thread-safe; callers may be virtual threads. {@link #write} blocks until the work
 * committed; SQLite runs writes one at a time on one writer, PostgreSQL runs them concurrently as
 * serializable transactions and runs a write again when the server reports a serialization conflict,
 * so on both engines a write sees and leaves the database as if it had run alone. Write work must
 * therefore only touch the database (it may run more than once) and never call out. {@link #read}
 * sees one snapshot. Lifecycle: {@link #close()} stops accepting work, lets writes in progress
 * finish, then closes every connection; later calls throw {@link StoreException}.
 */
public abstract sealed class Database implements AutoCloseable permits SqliteDatabase, PostgresDatabase {

    /** Opens (creating if needed) the SQLite file {@code file}, its parent directories, and the connections. */
    public static Database open(Path file) {
        return SqliteDatabase.create(file);
    }

    /** Connects to PostgreSQL with a pool of {@code poolSize} connections; fails fast when it is unreachable. */
    public static Database connect(PostgresTarget target, int poolSize) {
        return PostgresDatabase.create(target, poolSize);
    }

    /**
     * The PostgreSQL schema of {@code owner}: {@code caduceus_} and the owner id with every character
     * other than a lowercase letter or digit made {@code _} ({@code endpoint-jobs} →
     * {@code caduceus_endpoint_jobs}). The prefix keeps Caduceus' schemas apart from anything else in
     * the database, and shows a DBA whose they are.
     */
    public static String schemaOf(String owner) {
        return "caduceus_" + owner.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]", "_");
    }

    /** Runs {@code work} as the platform ({@link Migrations#PLATFORM}) in one read transaction. */
    public final <T> T read(Work<T> work) {
        return read(Migrations.PLATFORM, work);
    }

    /** Runs {@code work} as the platform in one write transaction and waits for the commit. */
    public final <T> T write(Work<T> work) {
        return write(Migrations.PLATFORM, work);
    }

    /** Runs {@code work} over {@code owner}'s tables in one read transaction (one snapshot). */
    public abstract <T> T read(String owner, Work<T> work);

    /**
     * Runs {@code work} over {@code owner}'s tables in one write transaction and waits for the commit.
     * An exception from the work rolls back what it did and is rethrown as a {@link StoreException}
     * (unless it already is one).
     */
    public abstract <T> T write(String owner, Work<T> work);

    /**
     * A write whose first statement locks the row the rest of it depends on (an upsert of that row, or
     * {@code SELECT … FOR UPDATE}), so that concurrent writers of one row queue behind each other instead
     * of conflicting and running again: a session many turns append to at once. On SQLite it is
     * {@link #write} (there is one writer). On PostgreSQL it runs at READ COMMITTED, where each statement
     * sees what committed before it started, so a read-then-insert behind the lock is as safe as under
     * SERIALIZABLE; work whose reads are not behind such a lock belongs in {@link #write}.
     */
    public abstract <T> T writeLocking(String owner, Work<T> work);

    /** Work that the items of several callers can do in one run, inside one write transaction (see {@link #writeMerged}). */
    @FunctionalInterface
    public interface MergedWork<I> {
        void run(dev.caduceus.spi.store.Sql sql, List<I> items) throws Exception;
    }

    /**
     * Writes {@code item} through {@code work} and waits for the commit, as {@link #writeLocking} of a list of one would;
     * on SQLite the items of the writes of the same {@code work} (the same object) that one group commit takes run as one
     * call, after its other writes: a chat turn's session append is then one upsert and one insert for all the turns
     * of a commit, instead of two statements each (bench/README.md, issue 48). {@code work} must do each item as if
     * alone; it runs with that item alone when its group fails.
     */
    public abstract <I> void writeMerged(String owner, MergedWork<I> work, I item);

    /**
     * Runs one {@code SELECT} over {@code owner}'s tables on its own: what {@code read(owner, sql -> sql.query(…))}
     * answers. On PostgreSQL it runs without a transaction around it (autocommit), one round trip where {@link #read}
     * takes two; a statement always sees one snapshot.
     */
    public <T> List<T> query(String owner, String statement, RowMapper<T> mapper, Object... args) {
        return read(owner, sql -> sql.query(statement, mapper, args));
    }

    /**
     * Runs one statement that writes over {@code owner}'s tables as a transaction of its own, waits for its commit and
     * returns its update count. On SQLite it is a {@link #write} of that statement (group-committed). On PostgreSQL it
     * runs in autocommit at READ COMMITTED: one round trip where a {@link #write} takes at least three (the statement,
     * the commit, and for {@link #writeLocking} the isolation level). At READ COMMITTED the statement sees what
     * committed before it started, and a row it updates that another transaction changed meanwhile is waited for and
     * read again: right for an upsert, or a data-modifying {@code WITH} whose rows follow from the one row its upsert
     * locks (as {@link #writeLocking}'s work is); a statement that decides from rows it does not lock belongs in
     * {@link #write}. A conflict (a deadlock) runs it again.
     */
    public int writeStatement(String owner, String statement, Object... args) {
        return write(owner, sql -> sql.update(statement, args));
    }

    /** {@link #writeLocking(String, Work)} as the platform. */
    public final <T> T writeLocking(Work<T> work) {
        return writeLocking(Migrations.PLATFORM, work);
    }

    public abstract Dialect dialect();

    /** The SQLite file; empty on PostgreSQL. */
    public abstract Optional<Path> file();

    /** Where the database is, for messages and logs: the file, or the URL without its password. */
    public abstract String describe();

    /** True when {@code SELECT 1} answers within {@code timeout}; never throws. */
    public final boolean ping(Duration timeout) {
        long started = System.nanoTime();
        try {
            Integer one = read(sql -> sql.queryOne("SELECT 1", row -> row.getInt(1)).orElse(0));
            return one == 1 && System.nanoTime() - started <= timeout.toNanos();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Publishes the connection pool's waits on {@code metrics}. Call once, after boot. */
    public abstract void observe(dev.caduceus.spi.metrics.Metrics metrics);

    @Override
    public abstract void close();

    /** Work that needs the raw handle (migrations run multi-statement scripts). */
    @FunctionalInterface
    interface HandleWork<T> {
        T run(Handle handle) throws Exception;
    }

    /**
     * A write with the raw jdbi handle, in a transaction of its own, for migrations: on PostgreSQL it
     * runs at READ COMMITTED under a cluster-wide lock, so nodes starting together migrate one at a time
     * and each sees what the one before it applied.
     */
    abstract <T> T writeWithHandle(String owner, HandleWork<T> work);

    static StoreException wrap(String what, Throwable cause) {
        if (cause instanceof StoreException se) return se;
        String detail = cause == null ? "" : ": " + cause;
        return new StoreException("Database " + what + detail, cause);
    }
}
