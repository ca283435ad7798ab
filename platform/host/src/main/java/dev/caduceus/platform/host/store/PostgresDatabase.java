package dev.caduceus.platform.host.store;

import static java.util.Objects.requireNonNull;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.caduceus.spi.metrics.Metrics;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.store.PluginDatabase.StoreException;
import dev.caduceus.spi.store.PluginDatabase.Work;
import dev.caduceus.spi.store.Sql.RowMapper;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jdbi.v3.core.Jdbi;

/**
 * The host database on a PostgreSQL server, shared by every node of a cluster, through HikariCP pools: one
 * for writes (SERIALIZABLE transactions), one for reads (REPEATABLE READ, read only, so a read sees one
 * snapshot as on SQLite), and for single statements ({@link #query}, {@link #writeStatement}: autocommit
 * at READ COMMITTED, each statement its own transaction) one pool per owner that runs them, made at its
 * first and emptied when idle. Its connections keep that owner's {@code search_path} for good, so a
 * statement is one round trip, where a transaction around it takes two or more and a change of schema
 * one more (and made the server plan the statement again: a chat turn's memory read and session append,
 * of two owners, alternated on shared connections).
 *
 * <p>Writes run concurrently, on this node and on the others. Serializable isolation makes each one
 * behave as if it ran alone, which is what the stores written for SQLite's single writer rely on (a
 * read-then-insert inside one write, a compare-and-set claim): when the server reports a conflict
 * (SQLSTATE 40001, or a deadlock, 40P01) the transaction is rolled back and the work runs again, up to
 * {@value #ATTEMPTS} times. Work that must not be repeated does not belong in a write. One hot row
 * (a session many turns append to at once) would make such writers conflict over and over:
 * {@link #writeLocking} runs at READ COMMITTED behind a row lock instead, and they queue.
 *
 * <p>Each owner's tables live in its own schema ({@link Database#schemaOf}); a connection's
 * {@code search_path} is set to the schema of the work it runs, only when it changes.
 *
 * <p>A connection failure (the server down or unreachable, SQLSTATE class 08, a pool timeout) becomes
 * a {@link StoreException} marked {@linkplain StoreException#unavailable() unavailable}, which the HTTP
 * layer answers with 503; the pools reconnect by themselves once the server is back.
 *
 * <p>Threading: thread-safe. Lifecycle as {@link Database}.
 */
public final class PostgresDatabase extends Database {
    static final int ATTEMPTS = 30;
    private static final Set<String> SESSION_ENDED = Set.of("57P01", "57P02", "57P03");
    /** Tries with a new connection after one the server dropped (the pool may hold several such). */
    private static final int RECONNECTS = 3;
    private static final Duration BORROW_TIMEOUT = Duration.ofSeconds(5);
    private static final long MIGRATION_LOCK = 0x6361647563657573L; // "caduceus"

    private final PostgresTarget target;
    private final HikariDataSource writers;
    private final HikariDataSource readers;
    private final int poolSize;
    /** Single-statement pools by schema; guarded by itself for creation and {@link #close}. */
    private final Map<String, HikariDataSource> statementPools = new ConcurrentHashMap<>();
    /** The search_path each physical connection has now (committed); absent: unknown. */
    private final Map<Connection, String> schemas = Collections.synchronizedMap(new WeakHashMap<>());
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Metrics.Counter poolWaits;
    private volatile Metrics.Histogram poolWait;
    private volatile Metrics.Counter conflicts;

    private PostgresDatabase(PostgresTarget target, HikariDataSource writers, HikariDataSource readers, int poolSize) {
        this.target = target;
        this.writers = writers;
        this.readers = readers;
        this.poolSize = poolSize;
    }

    static PostgresDatabase create(PostgresTarget target, int poolSize) {
        requireNonNull(target, "target");
        if (poolSize < 1) throw new IllegalArgumentException("poolSize must be >= 1");
        HikariDataSource writers = null;
        try {
            writers = pool(target, "caduceus-db-write", poolSize, "TRANSACTION_SERIALIZABLE", false);
            var readers = pool(target, "caduceus-db-read", poolSize, "TRANSACTION_REPEATABLE_READ", true);
            return new PostgresDatabase(target, writers, readers, poolSize);
        } catch (RuntimeException e) {
            if (writers != null) writers.close();
            throw new StoreException("Cannot connect to PostgreSQL at " + target.redacted() + ": " + reason(e), e, true);
        }
    }

    private static HikariDataSource pool(PostgresTarget target, String name, int size, String isolation, boolean readOnly) {
        var config = config(target, name, size, isolation);
        config.setMinimumIdle(Math.min(2, size));
        config.setAutoCommit(false);
        config.setReadOnly(readOnly);
        return new HikariDataSource(config);
    }

    /**
     * The single-statement pool of {@code owner}, made at its first statement: autocommit at READ COMMITTED, every
     * connection's {@code search_path} that owner's schema from its start. It keeps no connection when idle (each
     * goes after Hikari's idle timeout, 10 minutes), so an owner that ran a statement once holds nothing for long.
     */
    private HikariDataSource statementPool(String owner) {
        String schema = schemaOf(owner == null ? Migrations.PLATFORM : owner);
        var pool = statementPools.get(schema);
        if (pool != null) return pool;
        synchronized (statementPools) {
            if (closed.get()) throw new StoreException("database is closed", null);
            return statementPools.computeIfAbsent(schema, s -> {
                var config = config(target, "caduceus-db-statement-" + s, poolSize, "TRANSACTION_READ_COMMITTED");
                config.setMinimumIdle(0);
                config.setAutoCommit(true);
                config.setConnectionInitSql("SET search_path TO " + s);
                return new HikariDataSource(config);
            });
        }
    }

    private static HikariConfig config(PostgresTarget target, String name, int size, String isolation) {
        var config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(target.jdbcUrl());
        target.user().ifPresent(config::setUsername);
        target.password().ifPresent(config::setPassword);
        config.setDriverClassName("org.postgresql.Driver");
        config.setMaximumPoolSize(size);
        config.setTransactionIsolation(isolation);
        config.setConnectionTimeout(BORROW_TIMEOUT.toMillis());
        config.setValidationTimeout(2_000);
        config.setInitializationFailTimeout(1); // fail at once when the server cannot be reached
        config.addDataSourceProperty("ApplicationName", "caduceus");
        config.addDataSourceProperty("connectTimeout", "5");
        config.addDataSourceProperty("tcpKeepAlive", "true");
        return config;
    }

    /** The connection settings, for a dedicated connection outside the pools (LISTEN). */
    public PostgresTarget target() {
        return target;
    }

    /**
     * A new connection of its own (autocommit), not from the pools: for a {@code LISTEN} that stays open.
     * The caller closes it.
     */
    public Connection openDedicated() throws SQLException {
        var props = new Properties();
        target.user().ifPresent(u -> props.setProperty("user", u));
        target.password().ifPresent(p -> props.setProperty("password", p));
        props.setProperty("ApplicationName", "caduceus");
        props.setProperty("connectTimeout", "5");
        props.setProperty("tcpKeepAlive", "true");
        return DriverManager.getConnection(target.jdbcUrl(), props);
    }

    @Override
    public <T> T read(String owner, Work<T> work) {
        requireNonNull(work, "work");
        for (int attempt = 1; ; attempt++) {
            boolean borrowed = false;
            try (Connection c = borrow(readers)) {
                borrowed = true;
                try {
                    useSchema(c, owner);
                    T value = work.run(new HandleSql(c, null));
                    c.commit();
                    return value;
                } catch (Exception e) {
                    rollbackQuietly(c);
                    throw e;
                }
            } catch (Exception e) {
                // a connection the server dropped while it sat idle (restart, failover) fails on first use:
                // a read simply runs again, on a new one
                if (borrowed && attempt < RECONNECTS && isUnavailable(e) && !closed.get()) continue;
                throw failure("read failed", e);
            }
        }
    }

    @Override
    public <T> T write(String owner, Work<T> work) {
        return write(owner, work, false);
    }

    @Override
    public <T> T writeLocking(String owner, Work<T> work) {
        return write(owner, work, true);
    }

    @Override
    public <I> void writeMerged(String owner, MergedWork<I> work, I item) {
        requireNonNull(work, "work");
        writeLocking(owner, sql -> {
            work.run(sql, List.of(item));
            return null;
        });
    }

    /** One statement on {@code owner}'s statement pool: it only reads, so a lost connection simply runs it again. */
    @Override
    public <T> List<T> query(String owner, String statement, RowMapper<T> mapper, Object... args) {
        requireNonNull(statement, "statement");
        for (int attempt = 1; ; attempt++) {
            boolean borrowed = false;
            try (Connection c = borrow(statementPool(owner))) {
                borrowed = true;
                return new HandleSql(c, null).query(statement, mapper, args);
            } catch (Exception e) {
                if (borrowed && attempt < RECONNECTS && isUnavailable(e) && !closed.get()) continue;
                throw failure("read failed", e);
            }
        }
    }

    /**
     * One statement on {@code owner}'s statement pool (autocommit at READ COMMITTED). A deadlock rolled it back, so it runs
     * again. It also runs again on a new connection when the server had ended the connection's session (a restart,
     * a failover or {@code pg_terminate_backend} while the connection sat in the pool: SQLSTATE 57P01–57P03 answers the
     * statement, which did not commit). Lost in any other way, its outcome is unknown: reported, never repeated.
     */
    @Override
    public int writeStatement(String owner, String statement, Object... args) {
        requireNonNull(statement, "statement");
        int reconnects = 0;
        for (int attempt = 1; ; attempt++) {
            boolean borrowed = false;
            try (Connection c = borrow(statementPool(owner))) {
                borrowed = true;
                return new HandleSql(c, null).update(statement, args);
            } catch (Exception e) {
                if (conflictRetried(e, attempt)) continue;
                if (borrowed && sessionEnded(e) && ++reconnects < RECONNECTS && isUnavailable(e) && !closed.get())
                    continue;
                throw failure("write failed", e);
            }
        }
    }

    /** The server ended the session (administrator command, crash of another backend, shutdown): nothing it ran committed. */
    static boolean sessionEnded(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException se && se.getSQLState() != null
                    && SESSION_ENDED.contains(se.getSQLState())) return true;
        }
        return false;
    }

    private <T> T write(String owner, Work<T> work, boolean readCommitted) {
        requireNonNull(work, "work");
        int reconnects = 0;
        for (int attempt = 1; ; attempt++) {
            boolean committing = false;
            boolean borrowed = false;
            try (Connection c = borrow(writers)) {
                borrowed = true;
                try {
                    if (readCommitted) {
                        try (var st = c.createStatement()) {
                            st.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED"); // this transaction only
                        }
                    }
                    useSchema(c, owner);
                    T value = work.run(new HandleSql(c, null));
                    committing = true;
                    c.commit();
                    return value;
                } catch (Exception e) {
                    rollbackQuietly(c);
                    throw e;
                }
            } catch (Exception e) {
                if (conflictRetried(e, attempt)) continue;
                // Lost before the commit was sent: nothing was stored, so the write may run again on a new
                // connection. Lost during the commit, the outcome is unknown: reported, never repeated.
                // (A pool that could not connect at all has already waited its timeout: no retry.)
                if (borrowed && !committing && ++reconnects < RECONNECTS && isUnavailable(e) && !closed.get()) continue;
                throw failure("write failed", e);
            }
        }
    }

    @Override
    <T> T writeWithHandle(String owner, HandleWork<T> work) {
        try (Connection c = borrow(writers)) {
            try {
                try (var st = c.createStatement()) {
                    st.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
                    st.execute("SELECT pg_advisory_xact_lock(" + MIGRATION_LOCK + ")");
                    st.execute("CREATE SCHEMA IF NOT EXISTS " + schemaOf(owner));
                }
                useSchema(c, owner);
                var handle = Jdbi.open(c);
                T value = work.run(handle);
                c.commit();
                return value;
            } catch (Exception e) {
                rollbackQuietly(c);
                throw e;
            }
        } catch (Exception e) {
            throw failure("write failed", e);
        }
    }

    @Override
    public Dialect dialect() {
        return Dialect.POSTGRESQL;
    }

    @Override
    public Optional<Path> file() {
        return Optional.empty();
    }

    @Override
    public String describe() {
        return target.redacted();
    }

    @Override
    public void observe(Metrics metrics) {
        poolWaits = metrics.counter("db_pool_waits", "Database reads (on PostgreSQL also single-statement writes) "
                + "that waited for a free connection");
        poolWait = metrics.timer("db_pool_wait", "Time database reads (on PostgreSQL also single-statement writes) "
                + "waited for a free connection");
        conflicts = metrics.counter("db_write_conflicts", "Database writes run again after a serialization conflict "
                + "(PostgreSQL)");
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        writers.close(); // waits for borrowed connections up to Hikari's own timeout, then closes
        readers.close();
        synchronized (statementPools) {
            statementPools.values().forEach(HikariDataSource::close);
        }
    }

    private Connection borrow(HikariDataSource pool) throws SQLException {
        if (closed.get()) throw new StoreException("database is closed", null);
        var mx = pool.getHikariPoolMXBean();
        boolean waiting = pool != writers && mx != null && mx.getIdleConnections() == 0;
        long started = System.nanoTime();
        var connection = pool.getConnection();
        if (waiting) {
            var waits = poolWaits;
            var wait = poolWait;
            if (waits != null) waits.inc();
            if (wait != null) wait.recordSince(started);
        }
        return connection;
    }

    /** Points {@code search_path} at {@code owner}'s schema, unless it already is. */
    private void useSchema(Connection c, String owner) throws SQLException {
        String schema = schemaOf(owner == null ? Migrations.PLATFORM : owner);
        Connection physical = c.unwrap(Connection.class);
        if (schema.equals(schemas.get(physical))) return;
        try (var st = c.createStatement()) {
            // SET, not SET LOCAL: it outlives the transaction once that commits. A rollback undoes it,
            // so rollbackQuietly forgets what is recorded here.
            st.execute("SET search_path TO " + schema);
        }
        schemas.put(physical, schema);
    }

    private void rollbackQuietly(Connection c) {
        try {
            schemas.remove(c.unwrap(Connection.class));
            c.rollback();
        } catch (SQLException | RuntimeException ignored) {
            // a broken connection (Hikari's closed proxy throws unchecked): the pool discards it, and the
            // failure that brought us here is the one to report
        }
    }

    /** A conflict with tries left: counted, waited out; the caller runs the work again. */
    private boolean conflictRetried(Exception e, int attempt) {
        if (attempt >= ATTEMPTS || !isConflict(e)) return false;
        var counter = conflicts;
        if (counter != null) counter.inc();
        backOff(attempt);
        return true;
    }

    private static void backOff(int attempt) {
        long maxMicros = Math.min(50_000, 500L << Math.min(attempt, 7));
        try {
            TimeUnit.MICROSECONDS.sleep(ThreadLocalRandom.current().nextLong(100, maxMicros + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while retrying a database write", e);
        }
    }

    /** A serialization failure or deadlock anywhere in the cause chain: the write may simply run again. */
    static boolean isConflict(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException se && ("40001".equals(se.getSQLState()) || "40P01".equals(se.getSQLState())))
                return true;
        }
        return false;
    }

    /** The server unreachable, the connection lost or the pool empty for too long. */
    static boolean isUnavailable(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLTransientConnectionException || c instanceof SQLNonTransientConnectionException) return true;
            if (c instanceof SQLException se && se.getSQLState() != null
                    && (se.getSQLState().startsWith("08") || se.getSQLState().startsWith("57P"))) return true;
        }
        return false;
    }

    private StoreException failure(String what, Exception e) {
        if (e instanceof StoreException se) {
            if (se.unavailable() || !isUnavailable(se)) return se;
            return new StoreException(se.getMessage(), se, true);
        }
        if (isUnavailable(e))
            return new StoreException("Database unavailable (" + target.redacted() + "): " + reason(e), e, true);
        return wrap(what, e);
    }

    /** The innermost message: the driver's reason, not the pool's wrapping. */
    static String reason(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        if (root instanceof java.net.UnknownHostException) message = "unknown host " + message; // its message is the name alone
        return PostgresTarget.redact(message);
    }
}
