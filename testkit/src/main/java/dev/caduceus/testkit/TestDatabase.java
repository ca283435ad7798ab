package dev.caduceus.testkit;

import dev.caduceus.platform.store.Database;
import dev.caduceus.platform.store.Migrations;
import dev.caduceus.platform.store.PluginDatabaseImpl;
import dev.caduceus.platform.store.Script;
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
 * A real SQLite database in a test directory, with a plugin's own migrations applied exactly as the
 * host applies them (from {@code db/migration/<plugin-id>/sqlite/} on the test class path), or an
 * existing one ({@link #attach}). Same threading as the host database: one writer, pooled readers.
 */
public final class TestDatabase implements PluginDatabase, AutoCloseable {
    private final Database database;
    private final PluginDatabase plugin;

    private TestDatabase(Database database) {
        this.database = database;
        this.plugin = new PluginDatabaseImpl(database);
    }

    /** Opens {@code dir/test.db} and applies {@code pluginId}'s migrations found on the class path. */
    public static TestDatabase open(Path dir, String pluginId) {
        var db = Database.open(dir.resolve("test.db"));
        Migrations.apply(db, pluginId, scripts(pluginId));
        return new TestDatabase(db);
    }

    /**
     * Opens the existing database {@code file} as it is, migrating nothing: a {@link TestHost}'s
     * {@code caduceus.db} ({@code home().resolve("caduceus.db")}), to read a plugin's store beside the
     * running host as a second process does. Close it before the host is closed.
     */
    public static TestDatabase attach(Path file) {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("no database at " + file);
        return new TestDatabase(Database.open(file));
    }

    private static List<Script> scripts(String pluginId) {
        var folder = "db/migration/" + pluginId + "/sqlite";
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

    @Override public Dialect dialect() { return plugin.dialect(); }

    @Override public void close() { database.close(); }
}
