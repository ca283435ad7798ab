package dev.caduceus.platform.runtime.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.Sessions;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.store.Sql;
import dev.caduceus.support.sql.Batcher;
import dev.caduceus.support.sql.MultiRowInsert;
import java.io.CharArrayWriter;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Session transcripts in SQLite (platform tables {@code sessions} and {@code session_messages},
 * migration {@code V1__sessions.sql}). Messages are stored as JSON (content parts with their logical
 * type names), numbered per session from 1. Thread-safe: a turn's append is atomic.
 */
public final class SessionStore implements Sessions {
    private final Database database;
    private final ObjectMapper json;
    private final ObjectWriter rowWriter;
    private final MultiRowInsert.Into messageRows =
            MultiRowInsert.into("session_messages", "session_id, seq, message_json, created_at", "");
    private final Clock clock;

    public SessionStore(Database database, ObjectMapper json, Clock clock) {
        this.database = database;
        this.json = json;
        this.rowWriter = json.writer().withRootValueSeparator("");
        this.clock = clock;
        this.appends = database.dialect() == Dialect.POSTGRESQL
                ? new Batcher<>("caduceus-session-appends", MAX_BATCH, this::writeBatch) : null;
    }

    /**
     * A session id as stored: each key has its own sessions (a tenant that sends another's session
     * id gets an empty one); the admin key's are stored as they came, as before keys had names.
     */
    public static String scoped(String owner, String sessionId) {
        return owner.equals(dev.caduceus.spi.http.Caller.ADMIN) ? sessionId : owner + "\u001f" + sessionId;
    }

    /** Messages a PostgreSQL append writes with others in one statement at most; a longer turn takes a transaction. */
    static final int ONE_STATEMENT_MESSAGES = 200;
    /** Appends in one PostgreSQL statement at most (with {@link #ONE_STATEMENT_MESSAGES}, below its 65,535 parameters). */
    static final int MAX_BATCH = 64;

    private static final String UPSERT = "INSERT INTO sessions (session_id, last_used_at, last_seq) VALUES ";
    private static final String ON_CONFLICT = " ON CONFLICT (session_id) DO UPDATE SET last_used_at = excluded.last_used_at, "
            + "last_seq = sessions.last_seq + excluded.last_seq";

    /** One turn's append: its session, its time, its messages as stored. */
    private record Append(String sessionId, String now, List<String> rows) {}

    private final Batcher<Append> appends; // PostgreSQL's; null on SQLite
    private final Database.MergedWork<Append> mergedAppends = this::writeMerged; // one object: its writes merge

    /**
     * Appends to the stored session {@code sessionId} (already {@link #scoped}), atomically. The session's upsert
     * locks its row and gives its new last message number, from which the messages are numbered, so concurrent turns
     * of one session queue on that lock (and on PostgreSQL do not conflict).
     *
     * <p>On PostgreSQL the appends that arrive while one is written are written together, in one statement on its
     * own: the sessions' upsert in a {@code WITH}, the messages inserted numbered from what it returns. That is one
     * round trip for many turns, where a transaction of an upsert and an insert took four a turn (bench/README.md,
     * issue 41). SQLite, which has no {@code INSERT} inside a {@code WITH}, merges the appends of one group commit
     * into an upsert per session and an insert for their messages, where each turn ran both (issue 48).
     */
    public void append(String sessionId, List<Message> messages) {
        var append = new Append(sessionId, clock.instant().toString(), rows(messages));
        if (appends != null && append.rows().size() <= ONE_STATEMENT_MESSAGES) appends.submit(append);
        else database.writeMerged(Migrations.PLATFORM, mergedAppends, append);
    }

    /**
     * Writes {@code batch} with two statements a session and one a {@link MultiRowInsert.Into#insertKept few} rows:
     * each session upserted once, in the order of the ids, adding its batch's messages to its last number, then the
     * messages, numbered on from what the upsert left before them, in order. On SQLite the appends of one group commit
     * come here together; on PostgreSQL, a turn too long for {@link #writeBatch}'s one statement alone.
     */
    private void writeMerged(Sql sql, List<Append> batch) {
        var plan = BatchPlan.of(batch);
        var next = new java.util.HashMap<String, Long>(); // each session's last number before the batch's messages
        for (var session : plan.sessions().values()) {
            int count = plan.counts().get(session.sessionId());
            long last = sql.queryOne(UPSERT + "(?, ?, ?)" + ON_CONFLICT + " RETURNING last_seq", r -> r.getLong(1),
                    session.sessionId(), session.now(), count).orElseThrow();
            next.put(session.sessionId(), last - count);
        }
        var values = new ArrayList<Object[]>(plan.messages());
        for (var a : batch)
            for (var row : a.rows()) values.add(new Object[] {a.sessionId(), next.merge(a.sessionId(), 1L, Long::sum), row, a.now()});
        if (database.dialect() == Dialect.SQLITE) messageRows.insertKept(sql, values);
        else messageRows.insert(sql, values);
    }

    /** A batch's sessions by id (each with its last append: its time is the row's) and their message counts. */
    private record BatchPlan(java.util.TreeMap<String, Append> sessions, java.util.Map<String, Integer> counts, int messages) {
        static BatchPlan of(List<Append> batch) {
            var sessions = new java.util.TreeMap<String, Append>();
            var counts = new java.util.HashMap<String, Integer>();
            int messages = 0;
            for (var a : batch) {
                sessions.put(a.sessionId(), a);
                counts.merge(a.sessionId(), a.rows().size(), Integer::sum);
                messages += a.rows().size();
            }
            return new BatchPlan(sessions, counts, messages);
        }
    }

    /**
     * Writes {@code batch} in one statement. Its sessions are upserted once each, in the order of their ids (so two
     * nodes' statements lock shared sessions in the same order and cannot deadlock), adding the batch's messages of
     * each to its last number; each message is numbered back from that by its place among its session's in the batch,
     * so a session's appends keep their order.
     */
    private void writeBatch(List<Append> batch) {
        var plan = BatchPlan.of(batch);
        var sessions = plan.sessions();
        var counts = plan.counts();
        var args = new java.util.ArrayList<Object>(sessions.size() * 3 + batch.size() * 8);
        var statement = new StringBuilder(256 + sessions.size() * 12 + batch.size() * 24);
        int messages = plan.messages();
        if (messages > 0) statement.append("WITH s AS (");
        statement.append(UPSERT);
        String sep = "";
        for (var session : sessions.values()) {
            statement.append(sep).append("(?, ?, ?)");
            sep = ", ";
            args.add(session.sessionId());
            args.add(session.now());
            args.add(counts.get(session.sessionId()));
        }
        statement.append(ON_CONFLICT);
        if (messages > 0) {
            statement.append(" RETURNING session_id, last_seq) INSERT INTO session_messages (session_id, seq, message_json, "
                    + "created_at) SELECT s.session_id, s.last_seq - m.back, m.message_json, m.created_at FROM s JOIN (VALUES ");
            var left = new java.util.HashMap<>(counts); // messages of each session still to number, this one included
            sep = "";
            for (var a : batch) {
                for (var row : a.rows()) {
                    int back = left.merge(a.sessionId(), -1, Integer::sum); // 0 for the session's last message
                    statement.append(sep).append("(?, ").append(back).append(", ?, ?)");
                    sep = ", ";
                    args.add(a.sessionId());
                    args.add(row);
                    args.add(a.now());
                }
            }
            statement.append(") AS m (session_id, back, message_json, created_at) ON m.session_id = s.session_id");
        }
        database.writeStatement(Migrations.PLATFORM, statement.toString(), args.toArray());
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

    /**
     * Each message's JSON. A turn appends two or more: they go through one generator (one serializer context and
     * buffer for all, where each message took its own).
     */
    private List<String> rows(List<Message> messages) {
        var buffer = new CharArrayWriter(128); // grows for a long message; most are short
        var rows = new ArrayList<String>(messages.size());
        try (var out = rowWriter.writeValues(buffer)) {
            for (var message : messages) {
                out.write(message);
                out.flush();
                rows.add(buffer.toString());
                buffer.reset();
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot serialize message", e);
        }
        return rows;
    }

    private Message read(String row) {
        try {
            return json.readValue(row, Message.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("unreadable stored message", e);
        }
    }
}
