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
    /** Statements of up to this many rows are made once per {@link Into} and kept (a turn writes a few rows). */
    private static final int KEPT = 16;

    private MultiRowInsert() {}

    /** The inserts into one table: its statements for a few rows are made once, not per write. */
    public static Into into(String table, String columns, String conflict) {
        return new Into(table, columns, conflict);
    }

    /**
     * {@link MultiRowInsert#insert} for one table and columns, keeping the statement text of each row count up to
     * {@value #KEPT} (a racing first use makes it twice; the texts are equal). Thread-safe.
     */
    public static final class Into {
        private final String table;
        private final String columns;
        private final String conflict;
        private final int width;
        private final String[] statements = new String[KEPT + 1];

        private Into(String table, String columns, String conflict) {
            this.table = table;
            this.columns = columns;
            this.conflict = conflict;
            this.width = columns.split(",").length;
        }

        /** Inserts {@code rows} (each {@code columns}' values in order), in order, inside the caller's transaction. */
        public void insert(Sql sql, List<Object[]> rows) {
            if (rows.isEmpty() || rows.size() > KEPT) {
                MultiRowInsert.insert(sql, table, columns, conflict, rows);
                return;
            }
            var args = args(rows, width, 0);
            var statement = statements[rows.size()];
            if (statement == null) statements[rows.size()] = statement = statement(table, columns, conflict, width, rows.size());
            sql.update(statement, args);
        }

        /**
         * {@link #insert} in statements of {@value #KEPT} rows at most, all of them kept: for a connection that keeps
         * its prepared statements by text (SQLite's), where each row count past {@value #KEPT} would be another text to
         * prepare and keep, crowding out the others. On PostgreSQL, where a statement is a round trip, use {@link #insert}.
         */
        public void insertKept(Sql sql, List<Object[]> rows) {
            for (int from = 0; from < rows.size(); from += KEPT)
                insert(sql, rows.subList(from, Math.min(rows.size(), from + KEPT)));
        }
    }

    /** The values of {@code rows} in one array, row after row; {@code from}: the first row's number, for the error. */
    private static Object[] args(List<Object[]> rows, int width, int from) {
        var args = new Object[rows.size() * width];
        for (int i = 0; i < rows.size(); i++) {
            var values = rows.get(i);
            if (values.length != width) throw new IllegalArgumentException("row " + (from + i) + " has " + values.length
                    + " values, not " + width);
            System.arraycopy(values, 0, args, i * width, width);
        }
        return args;
    }

    private static String statement(String table, String columns, String conflict, int width, int rows) {
        var row = "(" + "?, ".repeat(width - 1) + "?)";
        var statement = new StringBuilder("INSERT INTO ").append(table).append(" (").append(columns).append(") VALUES ");
        for (int i = 0; i < rows; i++) statement.append(i == 0 ? "" : ", ").append(row);
        if (!conflict.isEmpty()) statement.append(' ').append(conflict);
        return statement.toString();
    }

    /**
     * Inserts {@code rows}, each the values of {@code columns} in order, into {@code table}, in order, inside the
     * caller's transaction. {@code conflict} follows the values ({@code "ON CONFLICT (…) DO NOTHING"}), or is empty.
     */
    public static void insert(Sql sql, String table, String columns, String conflict, List<Object[]> rows) {
        if (rows.isEmpty()) return;
        int width = rows.getFirst().length;
        for (int from = 0; from < rows.size(); from += MAX_ROWS) {
            var chunk = rows.subList(from, Math.min(rows.size(), from + MAX_ROWS));
            sql.update(statement(table, columns, conflict, width, chunk.size()), args(chunk, width, from));
        }
    }
}
