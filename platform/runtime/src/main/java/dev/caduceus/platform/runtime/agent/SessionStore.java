package dev.caduceus.platform.runtime.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.Sessions;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.support.sql.MultiRowInsert;
import java.time.Clock;
import java.util.List;

/**
 * Session transcripts in SQLite (platform tables {@code sessions} and {@code session_messages},
 * migration {@code V1__sessions.sql}). Messages are stored as JSON (content parts with their logical
 * type names), numbered per session from 1. Thread-safe: one transaction per turn.
 */
public final class SessionStore implements Sessions {
    private final Database database;
    private final ObjectMapper json;
    private final Clock clock;

    public SessionStore(Database database, ObjectMapper json, Clock clock) {
        this.database = database;
        this.json = json;
        this.clock = clock;
    }

    /**
     * A session id as stored: each key has its own sessions (a tenant that sends another's session
     * id gets an empty one); the admin key's are stored as they came, as before keys had names.
     */
    public static String scoped(String owner, String sessionId) {
        return owner.equals(dev.caduceus.spi.http.Caller.ADMIN) ? sessionId : owner + "\u001f" + sessionId;
    }

    /** Messages a PostgreSQL append writes in its one statement at most (a parameter each); a longer turn takes two. */
    static final int ONE_STATEMENT_MESSAGES = 200;

    private static final String UPSERT = "INSERT INTO sessions (session_id, last_used_at, last_seq) VALUES (?, ?, ?) "
            + "ON CONFLICT (session_id) DO UPDATE SET last_used_at = excluded.last_used_at, "
            + "last_seq = sessions.last_seq + excluded.last_seq";

    /**
     * Appends to the stored session {@code sessionId} (already {@link #scoped}), atomically. The session's upsert
     * locks its row and gives its new last message number, from which the messages are numbered, so concurrent turns
     * of one session queue on that lock (and on PostgreSQL do not conflict). On PostgreSQL that is one statement (the
     * upsert in a {@code WITH}, the messages inserted from its number) run on its own: one round trip a turn, where
     * a transaction of the upsert and the insert took four (bench/README.md, issue 41). SQLite, which has no
     * {@code INSERT} inside a {@code WITH}, runs the two in one group-committed write.
     */
    public void append(String sessionId, List<Message> messages) {
        var now = clock.instant().toString();
        var rows = messages.stream().map(this::write).toList();
        if (database.dialect() == Dialect.POSTGRESQL && rows.size() <= ONE_STATEMENT_MESSAGES) {
            appendInOneStatement(sessionId, now, rows);
            return;
        }
        database.writeLocking(sql -> {
            long last = sql.queryOne(UPSERT + " RETURNING last_seq", r -> r.getLong(1), sessionId, now, rows.size())
                    .orElseThrow();
            long seq = last - rows.size();
            var values = new java.util.ArrayList<Object[]>(rows.size());
            for (var row : rows) values.add(new Object[] {sessionId, ++seq, row, now});
            MultiRowInsert.insert(sql, "session_messages", "session_id, seq, message_json, created_at", "", values);
            return null;
        });
    }

    private void appendInOneStatement(String sessionId, String now, List<String> rows) {
        if (rows.isEmpty()) {
            database.writeStatement(Migrations.PLATFORM, UPSERT, sessionId, now, 0);
            return;
        }
        var statement = new StringBuilder(UPSERT.length() + 240 + rows.size() * 10)
                .append("WITH s AS (").append(UPSERT).append(" RETURNING last_seq) ")
                .append("INSERT INTO session_messages (session_id, seq, message_json, created_at) ")
                .append("SELECT ?, s.last_seq - ? + m.n, m.message_json, ? FROM s, (VALUES ");
        var args = new Object[6 + rows.size()];
        args[0] = sessionId;
        args[1] = now;
        args[2] = rows.size();
        args[3] = sessionId;
        args[4] = rows.size();
        args[5] = now;
        for (int i = 0; i < rows.size(); i++) {
            statement.append(i == 0 ? "(" : ", (").append(i + 1).append(", ?)");
            args[6 + i] = rows.get(i);
        }
        statement.append(") AS m (n, message_json)");
        database.writeStatement(Migrations.PLATFORM, statement.toString(), args);
    }

    /**
     * Deletes sessions not used for {@code retention} ({@code sessions.retention_days}), with their
     * messages; returns how many sessions went.
     */
    public int prune(java.time.Duration retention) {
        var cutoff = clock.instant().minus(retention).toString();
        return database.write(sql -> {
            sql.update("DELETE FROM session_messages WHERE session_id IN "
                    + "(SELECT session_id FROM sessions WHERE last_used_at < ?)", cutoff);
            return sql.update("DELETE FROM sessions WHERE last_used_at < ?", cutoff);
        });
    }

    @Override
    public List<Message> transcript(String owner, String sessionId) {
        var stored = scoped(owner, sessionId);
        var rows = database.read(sql -> sql.query(
                "SELECT message_json FROM session_messages WHERE session_id = ? ORDER BY seq", r -> r.getString(1),
                stored));
        return rows.stream().map(this::read).toList();
    }

    private String write(Message message) {
        try {
            return json.writeValueAsString(message);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot serialize message", e);
        }
    }

    private Message read(String row) {
        try {
            return json.readValue(row, Message.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("unreadable stored message", e);
        }
    }
}
