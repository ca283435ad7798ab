package dev.caduceus.platform.host.store;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.store.PluginDatabase.StoreException;
import dev.caduceus.spi.store.Sql.RowMapper;
import dev.caduceus.spi.store.Sql;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.sql.Connection;

/**
 * {@link Sql} over one JDBC connection, with that connection's {@link StatementCache} (SQLite, whose
 * connections live as long as the database), or preparing each statement afresh and closing it after
 * use (PostgreSQL, whose pooled connections hand out a new proxy per borrow; the driver keeps the
 * server-side prepared statements per physical connection itself). Valid only inside the work it was
 * handed to, on that thread; the {@link Database} owns the connection and its transaction.
 *
 * <p>Statements go straight to JDBC rather than through jdbi's statement API: jdbi builds its
 * configuration, argument factories and a fresh prepared statement for every call, which was about
 * three quarters of the writer thread's Java time per chat turn in the S1 profile. Jdbi still opens
 * the connections and runs the transactions and migrations.
 */
final class HandleSql implements Sql {
    private final Connection connection;
    private final StatementCache statements; // null: prepare per statement

    HandleSql(Connection connection, StatementCache statements) {
        this.connection = requireNonNull(connection, "connection");
        this.statements = statements;
    }

    @Override
    public <T> List<T> query(String sql, RowMapper<T> mapper, Object... args) {
        requireNonNull(mapper, "mapper");
        return rows(sql, mapper, 0, args);
    }

    /** The first row, if any. A mapper returning {@code null} counts as no row. */
    @Override
    public <T> Optional<T> queryOne(String sql, RowMapper<T> mapper, Object... args) {
        requireNonNull(mapper, "mapper");
        List<T> rows = rows(sql, mapper, 1, args);
        return rows.isEmpty() ? Optional.empty() : Optional.ofNullable(rows.getFirst());
    }

    @Override
    public int update(String sql, Object... args) {
        var statement = prepare(sql);
        try {
            bind(statement, args);
            statement.execute();
            return Math.max(0, statement.getUpdateCount());
        } catch (SQLException e) {
            throw failed(sql, e);
        } finally {
            release(statement);
        }
    }

    private <T> List<T> rows(String sql, RowMapper<T> mapper, int maxRows, Object... args) {
        var statement = prepare(sql);
        try {
            bind(statement, args);
            statement.setMaxRows(maxRows);
            var rows = new ArrayList<T>();
            try (var result = statement.executeQuery()) {
                while (result.next()) rows.add(mapper.map(result));
            }
            return rows;
        } catch (SQLException e) {
            throw failed(sql, e);
        } finally {
            release(statement);
        }
    }

    private PreparedStatement prepare(String sql) {
        requireNonNull(sql, "sql");
        if (controlsTransaction(sql))
            throw new StoreException("Transactions are the database's: a statement may not begin, end or mark one"
                    + " [statement: " + sql + "]", null);
        try {
            return statements == null ? connection.prepareStatement(sql) : statements.prepare(connection, sql);
        } catch (SQLException e) {
            throw failed(sql, e);
        }
    }

    /**
     * Whether {@code sql} begins, ends or marks a transaction ({@code BEGIN}, {@code COMMIT}, {@code END},
     * {@code ROLLBACK}, {@code SAVEPOINT}, {@code RELEASE}, {@code START TRANSACTION}, {@code ABORT}).
     * Work runs inside a transaction the database owns, on SQLite shared by every write of a group commit;
     * one that ended it would take the others' writes with it.
     */
    static boolean controlsTransaction(String sql) {
        int i = 0;
        int n = sql.length();
        while (i < n) { // leading blanks and comments
            char c = sql.charAt(i);
            if (Character.isWhitespace(c) || c == ';') i++;
            else if (sql.startsWith("--", i)) {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
            } else if (sql.startsWith("/*", i)) {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else break;
        }
        int start = i;
        while (i < n && Character.isLetter(sql.charAt(i))) i++;
        for (var word : TRANSACTION_WORDS) // compared in place: this runs for every statement
            if (word.length() == i - start && sql.regionMatches(true, start, word, 0, word.length())) return true;
        return false;
    }

    private static final List<String> TRANSACTION_WORDS =
            List.of("BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE", "ABORT", "START");

    private static StoreException failed(String sql, SQLException e) {
        return new StoreException(e.getMessage() + " [statement: " + sql + "]", e);
    }

    private void release(PreparedStatement statement) {
        try {
            if (statements == null) statement.close();
            else statement.clearParameters();
        } catch (SQLException e) {
            // the next use binds every parameter again anyway
        }
    }

    private static void bind(PreparedStatement statement, Object... args) throws SQLException {
        Object[] values = args == null ? new Object[] {null} : args;
        for (int i = 0; i < values.length; i++) {
            int at = i + 1;
            switch (values[i]) {
                case null -> statement.setNull(at, Types.NULL);
                case String s -> statement.setString(at, s);
                case Integer n -> statement.setInt(at, n);
                case Long n -> statement.setLong(at, n);
                case Short n -> statement.setInt(at, n.intValue());
                case Byte n -> statement.setInt(at, n.intValue());
                case Double n -> statement.setDouble(at, n);
                case Float n -> statement.setDouble(at, n.doubleValue());
                case java.math.BigDecimal n -> statement.setBigDecimal(at, n);
                case java.math.BigInteger n -> statement.setBigDecimal(at, new java.math.BigDecimal(n));
                // AtomicLong, LongAdder, …: as a number (a string is no number to PostgreSQL: "column is of type
                // bigint but expression is of type character varying")
                case Number n -> {
                    double d = n.doubleValue();
                    if (d == Math.rint(d) && !Double.isInfinite(d)) statement.setLong(at, n.longValue());
                    else statement.setDouble(at, d);
                }
                case Boolean b -> statement.setInt(at, b ? 1 : 0);
                case byte[] bytes -> statement.setBytes(at, bytes);
                default -> throw new IllegalArgumentException("parameter " + at + " has unsupported type "
                        + values[i].getClass().getName() + "; use String, Number, Boolean, byte[] or null");
            }
        }
    }
}
