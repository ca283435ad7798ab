package dev.caduceus.spi.store;

import java.sql.ResultSet;
import java.sql.SQLException;

/** Maps the current row of a result set; must not advance it. */
@FunctionalInterface
public interface RowMapper<T> {
    T map(ResultSet row) throws SQLException;
}
