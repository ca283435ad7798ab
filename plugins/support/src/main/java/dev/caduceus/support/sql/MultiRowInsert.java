package dev.caduceus.support.sql;

import dev.caduceus.spi.store.Sql;
import java.util.List;

/**
 * Rows written with multi-row {@code INSERT}s, a statement per {@value #MAX_ROWS} rows at most, where an insert per
 * row would be a statement (and on PostgreSQL a round trip) each. The same on SQLite and PostgreSQL. Stateless.
 */
public final class MultiRowInsert {
    /** Rows per statement at most: with the few columns of a journal or transcript row, far below either engine's cap on parameters. */
    public static final int MAX_ROWS = 200;

    private MultiRowInsert() {}

    /**
     * Inserts {@code rows}, each the values of {@code columns} in order, into {@code table}, in order, inside the
     * caller's transaction. {@code conflict} follows the values ({@code "ON CONFLICT (…) DO NOTHING"}), or is empty.
     */
    public static void insert(Sql sql, String table, String columns, String conflict, List<Object[]> rows) {
        if (rows.isEmpty()) return;
        int width = rows.getFirst().length;
        var row = "(" + "?, ".repeat(width - 1) + "?)";
        for (int from = 0; from < rows.size(); from += MAX_ROWS) {
            var chunk = rows.subList(from, Math.min(rows.size(), from + MAX_ROWS));
            var statement = new StringBuilder("INSERT INTO ").append(table).append(" (").append(columns).append(") VALUES ");
            var args = new Object[chunk.size() * width];
            for (int i = 0; i < chunk.size(); i++) {
                var values = chunk.get(i);
                if (values.length != width) throw new IllegalArgumentException("row " + (from + i) + " has " + values.length
                        + " values, the first " + width);
                statement.append(i == 0 ? "" : ", ").append(row);
                System.arraycopy(values, 0, args, i * width, width);
            }
            if (!conflict.isEmpty()) statement.append(' ').append(conflict);
            sql.update(statement.toString(), args);
        }
    }
}
