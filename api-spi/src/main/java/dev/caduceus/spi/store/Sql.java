package dev.caduceus.spi.store;

import java.util.List;
import java.util.Optional;

/**
 * SQL on one connection, inside {@link PluginDatabase#read} or {@link PluginDatabase#write}.
 * Parameters are positional {@code ?} markers bound from {@code args} (String, Number, Boolean,
 * byte[], null). Use SQL that SQLite and PostgreSQL both accept, so a plugin's tables can move to a shared PostgreSQL later.
 *
 * <p>Threading and lifecycle: valid only inside the work it was handed to, on that thread.
 */
public interface Sql {

    <T> List<T> query(String sql, RowMapper<T> mapper, Object... args);

    <T> Optional<T> queryOne(String sql, RowMapper<T> mapper, Object... args);

    /** Executes an INSERT/UPDATE/DELETE; returns the number of rows changed. */
    int update(String sql, Object... args);

    /** Maps the current row of a result set; must not advance it. */
    @FunctionalInterface
    interface RowMapper<T> {
        T map(java.sql.ResultSet row) throws java.sql.SQLException;
    }
}
