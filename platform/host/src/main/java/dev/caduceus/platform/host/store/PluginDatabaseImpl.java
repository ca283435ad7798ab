package dev.caduceus.platform.host.store;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.store.PluginDatabase.Work;
import dev.caduceus.spi.store.PluginDatabase;
import dev.caduceus.spi.store.Sql.RowMapper;
import java.util.List;

/**
 * A plugin's view of the host {@link Database}: the same connections, working on the plugin's own tables
 * (on PostgreSQL, its schema). Thread-safe; one instance per plugin.
 */
public final class PluginDatabaseImpl implements PluginDatabase {
    private final Database db;
    private final String owner;

    /** The database as seen by {@code owner} (a plugin id). */
    public PluginDatabaseImpl(Database db, String owner) {
        this.db = requireNonNull(db, "db");
        this.owner = requireNonNull(owner, "owner");
    }

    @Override
    public <T> T read(Work<T> work) {
        return db.read(owner, work);
    }

    @Override
    public <T> T write(Work<T> work) {
        return db.write(owner, work);
    }

    @Override
    public <T> List<T> query(String statement, RowMapper<T> mapper, Object... args) {
        return db.query(owner, statement, mapper, args);
    }

    @Override
    public Dialect dialect() {
        return db.dialect();
    }
}
