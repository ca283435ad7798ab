package dev.caduceus.platform.testkit;

import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.platform.host.store.PluginDatabaseImpl;
import dev.caduceus.platform.host.store.PlatformMigrations;
import dev.caduceus.platform.host.store.PostgresTarget;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import dev.caduceus.platform.host.store.Script;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.store.PluginDatabase;
import dev.caduceus.spi.store.PluginDatabase.Work;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A real database for a plugin's store tests, with the plugin's own migrations applied exactly as the
 * host applies them (from {@code db/migration/<plugin-id>/<dialect>/} on the test class path): a SQLite
 * file in a test directory, a fresh database on a real PostgreSQL server ({@link #open(Path, String, Dialect)}),
 * or an existing SQLite file ({@link #attach}). {@link #node()} opens a second, independent connection to the
 * same database, as another node of a cluster (PostgreSQL) or a restarted process would. Same threading as the
 * host database; each instance closes only its own connections.
 */
public final class TestDatabase implements PluginDatabase, AutoCloseable {
    private final Database database;
    private final PluginDatabase plugin;
    private final String pluginId;
    private final TestPostgres.Db postgres; // null on SQLite

    private TestDatabase(Database database, String pluginId, TestPostgres.Db postgres) {
        this.database = database;
        this.plugin = new PluginDatabaseImpl(database, pluginId);
        this.pluginId = pluginId;
        this.postgres = postgres;
    }

    /** Opens {@code dir/test.db} and applies {@code pluginId}'s migrations found on the class path. */
    public static TestDatabase open(Path dir, String pluginId) {
        var db = Database.open(dir.resolve("test.db"));
        Migrations.apply(db, pluginId, scripts(pluginId, Dialect.SQLITE));
        return new TestDatabase(db, pluginId, null);
    }

    /**
     * Opens the existing database {@code file} as it is, migrating nothing: a {@link TestHost}'s
     * {@code caduceus.db} ({@code home().resolve("caduceus.db")}), to read a plugin's store beside the
     * running host as a second process does. Close it before the host is closed.
     */
    public static TestDatabase attach(Path file) {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("no database at " + file);
        return new TestDatabase(Database.open(file), "platform", null);
    }

    /**
     * Another node on the PostgreSQL database {@code pg}: a pool of its own, and {@code pluginId}'s
     * migrations applied as a booting node applies them (nothing is pending when a first node already did).
     * Two of these on one database are two nodes of a cluster sharing it.
     */
    public static TestDatabase attach(TestPostgres.Db pg, String pluginId) {
        var db = Database.connect(PostgresTarget.parse(pg.url(), Optional.empty(), Optional.empty()), 4);
        try {
            Migrations.apply(db, Migrations.PLATFORM, PlatformMigrations.scripts(Dialect.POSTGRESQL));
            Migrations.apply(db, pluginId, scripts(pluginId, Dialect.POSTGRESQL));
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
        return new TestDatabase(db, pluginId, pg);
    }

    /**
     * A second, independent connection to this same database for the same plugin: on PostgreSQL another
     * node ({@link #attach(TestPostgres.Db, String)}), on SQLite the same file opened again (a restarted
     * process). Close it on its own; closing it leaves this one open.
     */
    public TestDatabase node() {
        if (postgres != null) return attach(postgres, pluginId);
        var file = database.file().orElseThrow();
        var db = Database.open(file);
        return new TestDatabase(db, pluginId, null);
    }

    /** The PostgreSQL database under this view; empty on SQLite. */
    public Optional<TestPostgres.Db> postgres() {
        return Optional.ofNullable(postgres);
    }

    /**
     * A fresh database of {@code dialect} with {@code pluginId}'s migrations for it applied: a SQLite file
     * in {@code dir}, or a new database on the test PostgreSQL server ({@link TestPostgres#shared()}). For
     * store tests that run on both engines ({@code @EnumSource(Dialect.class)}).
     */
    public static TestDatabase open(Path dir, String pluginId, Dialect dialect) {
        if (dialect == Dialect.SQLITE) return open(dir, pluginId);
        return attach(TestPostgres.shared().newDatabase(), pluginId);
    }

    /** The host database under this view (for a test's own SQL as the platform, or to read another owner's tables). */
    public Database host() {
        return database;
    }

    private static List<Script> scripts(String pluginId, Dialect dialect) {
        var folder = "db/migration/" + pluginId + "/" + Migrations.folder(dialect);
        var url = Thread.currentThread().getContextClassLoader().getResource(folder);
        if (url == null || !"file".equals(url.getProtocol())) return List.of();
        try (var files = Files.list(Path.of(url.toURI()))) {
            return files.sorted(Comparator.comparing(Path::toString))
                    .map(f -> read(f).flatMap(sql -> Script.fromFileName(f.getFileName().toString(), sql, f.toString())))
                    .flatMap(Optional::stream)
                    .sorted(Comparator.comparingInt(Script::version))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Optional<String> read(Path file) {
        try {
            return Optional.of(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override public <T> T read(Work<T> work) { return plugin.read(work); }

    @Override public <T> T write(Work<T> work) { return plugin.write(work); }

    @Override public <T> java.util.List<T> query(String statement, dev.caduceus.spi.store.Sql.RowMapper<T> mapper, Object... args) {
        return plugin.query(statement, mapper, args);
    }

    @Override public Dialect dialect() { return plugin.dialect(); }

    @Override public void close() { database.close(); }
}
