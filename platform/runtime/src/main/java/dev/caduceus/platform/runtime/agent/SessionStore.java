package dev.caduceus.platform.runtime.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.Sessions;
import dev.caduceus.support.sql.MultiRowInsert;
import java.time.Clock;
import java.util.List;

/**
 * Session transcripts in SQLite (platform tables {@code sessions} and {@code session_messages},
 * migration {@code V1__sessions.sql}). Messages are stored as JSON (content parts with their logical
 * type names), numbered per session from 1. Thread-safe: writes go through the single writer, one
 * transaction per turn.
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

    /**
     * Appends to the stored session {@code sessionId} (already {@link #scoped}) in two statements, one
     * transaction: the session's upsert, which locks its row and returns its new last message number
     * (concurrent turns of one session queue on that lock, and on PostgreSQL do not conflict), then the
     * messages in one insert. A MAX(seq) read and an insert per message did the same in four statements
     * a chat turn (bench/README.md, issue 48).
     */
    public void append(String sessionId, List<Message> messages) {
        var now = clock.instant().toString();
        var rows = messages.stream().map(this::write).toList();
        database.writeLocking(sql -> {
            long last = sql.queryOne("INSERT INTO sessions (session_id, last_used_at, last_seq) VALUES (?, ?, ?) "
                    + "ON CONFLICT (session_id) DO UPDATE SET last_used_at = excluded.last_used_at, "
                    + "last_seq = sessions.last_seq + excluded.last_seq RETURNING last_seq",
                    r -> r.getLong(1), sessionId, now, rows.size()).orElseThrow();
            long seq = last - rows.size();
            var values = new java.util.ArrayList<Object[]>(rows.size());
            for (var row : rows) values.add(new Object[] {sessionId, ++seq, row, now});
            MultiRowInsert.insert(sql, "session_messages", "session_id, seq, message_json, created_at", "", values);
            return null;
        });
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
