package dev.caduceus.platform.store;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.store.RowMapper;
import dev.caduceus.spi.store.Sql;
import java.sql.Types;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * {@link Sql} over one jdbi {@link Handle}. Valid only inside the work it was handed to, on that
 * thread; the {@link Database} owns the handle and its transaction.
 */
final class HandleSql implements Sql {
    private final Handle handle;

    HandleSql(Handle handle) {
        this.handle = requireNonNull(handle, "handle");
    }

    @Override
    public <T> List<T> query(String sql, RowMapper<T> mapper, Object... args) {
        requireNonNull(mapper, "mapper");
        return bind(handle.createQuery(sql), args).map((row, ctx) -> mapper.map(row)).list();
    }

    /** The first row, if any. A mapper returning {@code null} counts as no row. */
    @Override
    public <T> Optional<T> queryOne(String sql, RowMapper<T> mapper, Object... args) {
        requireNonNull(mapper, "mapper");
        List<T> rows = bind(handle.createQuery(sql), args).setMaxRows(1)
                .map((row, ctx) -> mapper.map(row)).list();
        return rows.isEmpty() ? Optional.empty() : Optional.ofNullable(rows.get(0));
    }

    @Override
    public int update(String sql, Object... args) {
        return bind(handle.createUpdate(sql), args).execute();
    }

    private static <S extends SqlStatement<S>> S bind(S statement, Object... args) {
        Object[] values = args == null ? new Object[] {null} : args;
        for (int i = 0; i < values.length; i++) {
            switch (values[i]) {
                case null -> statement.bindNull(i, Types.NULL);
                case String s -> statement.bind(i, s);
                case Integer n -> statement.bind(i, n);
                case Long n -> statement.bind(i, n);
                case Short n -> statement.bind(i, n.intValue());
                case Byte n -> statement.bind(i, n.intValue());
                case Double n -> statement.bind(i, n);
                case Float n -> statement.bind(i, n.doubleValue());
                case java.math.BigDecimal n -> statement.bind(i, n);
                case Number n -> statement.bind(i, n.toString());
                case Boolean b -> statement.bind(i, b ? 1 : 0);
                case byte[] bytes -> statement.bind(i, bytes);
                default -> throw new IllegalArgumentException("parameter " + (i + 1) + " has unsupported type "
                        + values[i].getClass().getName() + "; use String, Number, Boolean, byte[] or null");
            }
        }
        return statement;
    }
}
