package dev.caduceus.platform.store;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.store.PluginDatabase;
import dev.caduceus.spi.store.PluginDatabase.Work;

/**
 * A plugin's view of the host {@link Database}: the same single writer and reader pool, nothing
 * more. Thread-safe; one instance per plugin.
 */
public final class PluginDatabaseImpl implements PluginDatabase {
    private final Database db;

    public PluginDatabaseImpl(Database db) {
        this.db = requireNonNull(db, "db");
    }

    @Override
    public <T> T read(Work<T> work) {
        return db.read(work);
    }

    @Override
    public <T> T write(Work<T> work) {
        return db.write(work);
    }

    @Override
    public Dialect dialect() {
        return Dialect.SQLITE;
    }
}
