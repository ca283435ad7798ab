package dev.caduceus.platform.host.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The prepared statements of one connection, by SQL text, least recently used evicted past
 * {@value #MAX_STATEMENTS}. Preparing is the expensive part of a small SQLite statement and the
 * host runs the same few dozen statements over and over; SQLite re-prepares a cached statement by
 * itself after a schema change. Threading: not thread-safe — one per connection, and a connection
 * is used by one thread at a time (the writer, or the reader that borrowed it).
 */
final class StatementCache {
    static final int MAX_STATEMENTS = 128;
    private final Map<String, PreparedStatement> statements = new LinkedHashMap<>(32, 0.75f, true);

    PreparedStatement prepare(Connection connection, String sql) throws SQLException {
        var statement = statements.get(sql);
        if (statement != null && !statement.isClosed() && statement.getConnection() == connection) return statement;
        statement = connection.prepareStatement(sql);
        statements.put(sql, statement);
        if (statements.size() > MAX_STATEMENTS) {
            var eldest = statements.entrySet().iterator().next();
            statements.remove(eldest.getKey());
            closeQuietly(eldest.getValue());
        }
        return statement;
    }

    private static void closeQuietly(PreparedStatement statement) {
        try {
            statement.close();
        } catch (SQLException e) {
            // an evicted statement: nothing depends on it any more
        }
    }
}
