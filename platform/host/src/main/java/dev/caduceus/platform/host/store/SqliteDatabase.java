package dev.caduceus.platform.host.store;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.store.PluginDatabase.StoreException;
import dev.caduceus.spi.store.PluginDatabase.Work;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The host's SQLite database (the embedded default): one dedicated writer thread holding one handle,
 * plus a small pool of reader handles. There is one schema: the owner passed to {@link #read(String, Work)}
 * and {@link #write(String, Work)} changes nothing (ownership of tables is checked by {@link Migrations}).
 *
 * <p>Threading: thread-safe; callers may be virtual threads. {@link #write} queues the work on the
 * writer thread and blocks until it committed. Writes are serialized and group-committed: the writer
 * takes every write queued while the previous commit ran and runs them, in order, in one IMMEDIATE
 * transaction, each inside its own savepoint, so a write that throws is rolled back alone and the
 * others still commit. One commit for many writes is what lets the chat path (a session transcript
 * per turn) sustain thousands of turns a second on one writer thread. If the shared transaction
 * itself fails, every write in it is run again alone, so a write only ever fails for its own reasons.
 * {@link #read} borrows a reader handle for the duration of the work (one deferred transaction, so
 * the work sees one snapshot). Never call {@link #write} from inside a write; never hold a read
 * while waiting for something else. Lifecycle: {@link #close()} stops accepting work, lets queued
 * writes finish, then closes every handle; later calls throw {@link StoreException}.
 */
public final class SqliteDatabase extends Database {
    /**
     * Pragmas applied by sqlite-jdbc to every new connection (busy_timeout is per connection). Generated
     * keys are off: nothing reads them, and the driver looked for them after every insert (a regex over
     * the SQL and a {@code select last_insert_rowid()}: ~1 KB of garbage and a query per insert).
     */
    static final String PRAGMAS = "journal_mode=WAL&synchronous=NORMAL&foreign_keys=true&busy_timeout=5000"
            + "&jdbc.get_generated_keys=false";
    static final int READERS = 4;
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

    /** Set by {@link #observe}; null before (reads at boot are not counted). */
    private volatile dev.caduceus.spi.metrics.Metrics.Counter poolWaits;
    private volatile dev.caduceus.spi.metrics.Metrics.Histogram poolWait;
    private final Path file;
    private final GroupCommitWriter writer;
    private final Map<Handle, StatementCache> statements = new ConcurrentHashMap<>(); // one per connection
    private final List<Handle> readHandles;
    private final BlockingQueue<Handle> idleReaders;
    private final AtomicBoolean closed = new AtomicBoolean();

    private SqliteDatabase(Path file, GroupCommitWriter writer, List<Handle> readHandles) {
        this.file = file;
        this.writer = writer;
        this.readHandles = List.copyOf(readHandles);
        this.idleReaders = new ArrayBlockingQueue<>(readHandles.size(), false, readHandles);
    }

    /**
     * Starts, on a daemon thread, the costliest one-time initialisation of the first {@link #open}: the
     * first statement initialises Jdbi's {@code JfrSupport}, which registers Jdbi's statement event with
     * JFR and so makes the JDK load JFR's event metadata (~50 ms on the writer thread even from the AOT
     * cache, ~0.3 s without it; whether or not anything records). Only loading the event class, which
     * this did before, does nothing once the AOT cache has loaded every class at JVM start: the class
     * has to be initialised. Started first thing at boot, it overlaps the configuration set-up instead
     * of delaying the database's first migration. Harmless if Jdbi changes.
     */
    public static void warmUpInBackground() {
        Thread.ofPlatform().daemon().name("caduceus-db-warm-up").start(() -> {
            try {
                Class.forName("org.jdbi.v3.core.statement.internal.JfrSupport", true, Jdbi.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError ignored) {
                // only a warm-up: the first statement initialises whatever it needs
            }
        });
    }

    /** Opens (creating if needed) the database file, its parent directories, and the connections. */
    static SqliteDatabase create(Path file) {
        Path absolute = requireNonNull(file, "file").toAbsolutePath().normalize();
        createOwnerOnly(absolute);
        String url = "jdbc:sqlite:" + absolute + "?" + PRAGMAS;
        Jdbi writerJdbi = Jdbi.create(url + "&transaction_mode=IMMEDIATE");
        Jdbi readerJdbi = Jdbi.create(url);
        List<Handle> readers = new ArrayList<>();
        GroupCommitWriter writer = null;
        try {
            writer = GroupCommitWriter.start(writerJdbi); // opened first: it switches the file to WAL
            for (int i = 0; i < READERS; i++) readers.add(readerJdbi.open());
        } catch (Exception | Error e) {
            readers.forEach(Handle::close);
            if (writer != null) writer.close();
            throw new StoreException("Cannot open database " + absolute + ": " + e.getMessage(), e);
        }
        var db = new SqliteDatabase(absolute, writer, readers);
        db.ping(CLOSE_WAIT); // opens the WAL index, so -wal and -shm exist before permissions are fixed
        db.restrictPermissions();
        return db;
    }

    /** The database file. */
    @Override
    public Optional<Path> file() {
        return Optional.of(file);
    }

    @Override
    public Dialect dialect() {
        return Dialect.SQLITE;
    }

    @Override
    public String describe() {
        return file.toString();
    }

    /**
     * Runs {@code work} on the writer thread inside an IMMEDIATE transaction (shared with the writes
     * queued next to it, under a savepoint of its own) and waits for the commit. An exception from
     * the work rolls back what it did and is rethrown as a {@link StoreException} (unless it already
     * is one).
     */
    @Override
    public <T> T write(String owner, Work<T> work) {
        requireNonNull(work, "work");
        return writer.write(h -> work.run(sql(h)), false);
    }

    @Override
    public <T> T writeLocking(String owner, Work<T> work) {
        return write(owner, work);
    }

    @Override
    public <I> void writeMerged(String owner, MergedWork<I> work, I item) {
        requireNonNull(work, "work");
        writer.writeMerged(work, (h, items) -> work.run(sql(h), items), item);
    }

    /** {@link Sql} on {@code handle}, with the statement cache of its connection. */
    private HandleSql sql(Handle handle) {
        return new HandleSql(handle.getConnection(), statements.computeIfAbsent(handle, h -> new StatementCache()));
    }

    /** Writes queued behind the one the writer is running (for tests). */
    int queuedWrites() {
        return writer.queued();
    }

    @Override
    <T> T writeWithHandle(String owner, HandleWork<T> work) {
        return writer.write(work, true);
    }

    /**
     * Publishes the reader pool's waits on {@code metrics} ({@code caduceus_db_pool_waits_total}: reads
     * that found no idle reader handle; {@code caduceus_db_pool_wait_seconds}: how long they waited).
     * Call once, after boot.
     */
    @Override
    public void observe(dev.caduceus.spi.metrics.Metrics metrics) {
        poolWaits = metrics.counter("db_pool_waits", "Database reads (on PostgreSQL also single-statement writes) "
                + "that waited for a free connection");
        poolWait = metrics.timer("db_pool_wait", "Time database reads (on PostgreSQL also single-statement writes) "
                + "waited for a free connection");
    }

    /** Runs {@code work} on a pooled reader handle, in one deferred (read) transaction. */
    @Override
    public <T> T read(String owner, Work<T> work) {
        requireNonNull(work, "work");
        Handle handle = borrowReader();
        try {
            return handle.inTransaction(h -> work.run(sql(h)));
        } catch (Exception e) {
            throw wrap("read failed", e);
        } finally {
            idleReaders.add(handle);
        }
    }

    /** Stops accepting work, finishes queued writes, then closes every handle. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        writer.close(CLOSE_WAIT);
        try {
            for (int i = 0; i < readHandles.size(); i++) {
                Handle h = idleReaders.poll(CLOSE_WAIT.toSeconds(), TimeUnit.SECONDS);
                if (h == null) break; // a read is stuck; its handle is closed below regardless
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            readHandles.forEach(Handle::close);
        }
    }

    private Handle borrowReader() {
        var idle = idleReaders.poll();
        if (idle != null) {
            if (!closed.get()) return idle;
            idleReaders.add(idle);
        }
        var waits = poolWaits;
        long started = System.nanoTime();
        if (waits != null) waits.inc();
        try {
            while (true) {
                if (closed.get()) throw new StoreException("database is closed", null);
                Handle h = idleReaders.poll(100, TimeUnit.MILLISECONDS);
                if (h != null) {
                    var wait = poolWait;
                    if (wait != null) wait.recordSince(started);
                    if (!closed.get()) return h;
                    idleReaders.add(h);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting for a database reader", e);
        }
    }

    private static void createOwnerOnly(Path file) {
        try {
            Files.createDirectories(file.getParent());
            if (isPosix(file.getParent())) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            }
        } catch (FileAlreadyExistsException e) {
            // existing database: permissions are fixed after opening
        } catch (IOException e) {
            throw new StoreException("Cannot create database file " + file + ": " + e.getMessage(), e);
        }
    }

    /** SQLite creates -wal and -shm with the database's mode; this also fixes files made by older runs. */
    private void restrictPermissions() {
        if (!isPosix(file.getParent())) return;
        for (String suffix : List.of("", "-wal", "-shm")) {
            Path p = file.resolveSibling(file.getFileName() + suffix);
            try {
                if (Files.exists(p)) Files.setPosixFilePermissions(p, OWNER_ONLY);
            } catch (IOException e) {
                throw new StoreException("Cannot restrict permissions of " + p + ": " + e.getMessage(), e);
            }
        }
    }

    private static boolean isPosix(Path dir) {
        return Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null;
    }
}
