package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.store.Database;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The session transcripts ({@link SessionStore}) on SQLite and on PostgreSQL. */
@ParameterizedClass
@EnumSource(Dialect.class)
class SessionStoreTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @Parameter
    Dialect dialect;
    @TempDir
    Path dir;
    private TestStore store;
    private Database db;

    @BeforeEach
    void open() {
        store = TestStore.create(dialect, dir);
        db = store.open();
    }

    @AfterEach
    void close() {
        db.close();
    }

    private SessionStore sessions(Database database, Instant now) {
        return new SessionStore(database, Harness.JSON, Clock.fixed(now, ZoneOffset.UTC));
    }

    @Test
    void turnsAppendInOrderAndEachKeyHasItsOwnSessions() {
        var sessions = sessions(db, START);
        sessions.append("s1", List.of(Message.user("one"), Message.assistant("two")));
        sessions.append("s1", List.of(Message.user("three")));
        sessions.append(SessionStore.scoped("alice", "s1"), List.of(Message.user("alice's")));
        assertEquals(List.of("one", "two", "three"), sessions.transcript("admin", "s1").stream().map(Message::text).toList());
        assertEquals(List.of("alice's"), sessions.transcript("alice", "s1").stream().map(Message::text).toList());
        assertTrue(sessions.transcript("bob", "s1").isEmpty(), "another key's session of that id is empty");
        assertTrue(sessions.transcript("admin", "unknown").isEmpty());
    }

    @Test
    void aTurnsMessagesAreStoredEachAsItsOwnJsonAsOneMessageIs() throws Exception {
        var sessions = sessions(db, START);
        var turn = List.of(Message.system("rules \"quoted\"\n"), Message.user("héllo ✓ \uD83D\uDE00"),
                Message.assistant(""), Message.assistant("two"));
        sessions.append("s1", turn);
        sessions.append("s1", List.of(Message.user("alone")));
        var rows = db.read(sql -> sql.query("SELECT message_json FROM session_messages ORDER BY seq", r -> r.getString(1)));
        var expected = new java.util.ArrayList<String>();
        for (var message : turn) expected.add(Harness.JSON.writeValueAsString(message));
        expected.add(Harness.JSON.writeValueAsString(Message.user("alone")));
        assertEquals(expected, rows, "no separator or leftover between a turn's messages");
        assertEquals(List.of("rules \"quoted\"\n", "héllo ✓ \uD83D\uDE00", "", "two", "alone"),
                sessions.transcript("admin", "s1").stream().map(Message::text).toList());
    }

    @Test
    void sessionsUnusedForTheRetentionPeriodGoWithTheirMessages() {
        sessions(db, START).append("old", List.of(Message.user("hi")));
        sessions(db, START.plus(Duration.ofDays(10))).append("kept", List.of(Message.user("hello")));
        var later = sessions(db, START.plus(Duration.ofDays(31)));
        later.append("old-but-used", List.of(Message.user("x")));
        assertEquals(1, later.prune(Duration.ofDays(30)));
        assertTrue(later.transcript("admin", "old").isEmpty());
        assertEquals(1, later.transcript("admin", "kept").size());
        assertEquals(0L, (long) db.read(sql -> sql.queryOne("SELECT COUNT(*) FROM session_messages WHERE session_id = ?",
                r -> r.getLong(1), "old").orElseThrow()));
    }

    @Test
    void twoNodesAppendingToOneSessionAtOnceLoseNoMessage() throws Exception {
        // 32 writers of one hot session (a derived session id many clients share): on PostgreSQL they
        // queue on the session's row instead of conflicting until their retries run out
        try (var otherDb = store.open()) {                               // a second node on the same database
            var metrics = new dev.caduceus.platform.host.metrics.MetricsRegistry();
            db.observe(metrics.host());
            otherDb.observe(metrics.host());
            var nodes = List.of(sessions(db, START), sessions(otherDb, START));
            int writers = 32;
            int turns = 10;
            var barrier = new CyclicBarrier(writers);
            var pool = Executors.newFixedThreadPool(writers);
            try {
                var done = new ArrayList<Future<?>>();
                for (int w = 0; w < writers; w++) {
                    var node = nodes.get(w % 2);
                    var name = "writer" + w;
                    done.add(pool.submit(() -> {
                        barrier.await(10, TimeUnit.SECONDS);
                        for (int t = 0; t < turns; t++)
                            node.append("shared", List.of(Message.user(name + "-" + t), Message.assistant(name + "-a" + t)));
                        return null;
                    }));
                }
                for (var f : done) f.get(60, TimeUnit.SECONDS);
            } finally {
                pool.shutdownNow();
            }
            int messages = 2 * writers * turns;
            var transcript = nodes.getFirst().transcript("admin", "shared");
            assertEquals(messages, transcript.size());
            for (int i = 0; i < transcript.size(); i += 2) // a turn's messages stay together
                assertEquals(transcript.get(i).text().replace("-", "-a"), transcript.get(i + 1).text());
            var seqs = db.read(sql -> sql.query("SELECT seq FROM session_messages WHERE session_id = ? ORDER BY seq",
                    r -> r.getLong(1), "shared"));
            assertEquals(IntStream.rangeClosed(1, messages).mapToObj(i -> (long) i).toList(), seqs, "numbered densely from 1");
            var exposition = new String(metrics.scrape(null).body(), java.nio.charset.StandardCharsets.UTF_8);
            var conflicts = java.util.regex.Pattern.compile("(?m)^caduceus_db_write_conflicts_total (\\S+)$").matcher(exposition);
            if (dialect == Dialect.POSTGRESQL) {
                assertTrue(conflicts.find(), exposition);
                assertEquals(0.0, Double.parseDouble(conflicts.group(1)), "the writers queued on the row, none ran again");
            }
        }
    }

    @Test
    void manyTurnsOfManySessionsAtOnceEachKeepTheirOrder() throws Exception {
        // on PostgreSQL the appends that arrive together are written in one statement: several turns of one session,
        // other sessions and turns without messages mixed in one batch
        var sessions = sessions(db, START);
        int writers = 24;
        int turns = 15;
        var barrier = new CyclicBarrier(writers);
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var done = new ArrayList<Future<?>>();
            for (int w = 0; w < writers; w++) {
                var session = "s" + (w % 6); // four writers a session
                var name = "writer" + w;
                done.add(pool.submit(() -> {
                    barrier.await(10, TimeUnit.SECONDS);
                    for (int t = 0; t < turns; t++) {
                        sessions.append(session, List.of(Message.user(name + "-" + t), Message.assistant(name + "-a" + t)));
                        if (t % 5 == 0) sessions.append(session, List.of());
                    }
                    return null;
                }));
            }
            for (var f : done) f.get(60, TimeUnit.SECONDS);
        }
        for (int s = 0; s < 6; s++) {
            var texts = sessions.transcript("admin", "s" + s).stream().map(Message::text).toList();
            assertEquals(2 * 4 * turns, texts.size());
            for (int i = 0; i < texts.size(); i += 2) // a turn's messages stay together
                assertEquals(texts.get(i).replace("-", "-a"), texts.get(i + 1));
            for (int w = s; w < writers; w += 6) { // each writer's turns in its order
                var prefix = "writer" + w + "-";
                var own = texts.stream().filter(t -> t.startsWith(prefix) && !t.startsWith(prefix + "a")).toList();
                assertEquals(IntStream.range(0, turns).mapToObj(t -> prefix + t).toList(), own);
            }
            var id = "s" + s;
            var seqs = db.read(sql -> sql.query("SELECT seq FROM session_messages WHERE session_id = ? ORDER BY seq",
                    r -> r.getLong(1), id));
            assertEquals(LongStream.rangeClosed(1, 2L * 4 * turns).boxed().toList(), seqs, "numbered densely from 1");
        }
    }

    private static String json(Message message) {
        try {
            return Harness.JSON.writeValueAsString(message);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aTurnOfMoreMessagesThanOneInsertTakesKeepsTheirOrder() {
        var sessions = sessions(db, START);
        sessions.append("long", List.of(Message.user("first")));
        var many = IntStream.range(0, dev.caduceus.support.sql.MultiRowInsert.MAX_ROWS * 2 + 5).mapToObj(i -> Message.assistant("m" + i)).toList();
        sessions.append("long", many);
        sessions.append("long", List.of());                              // touches the session, adds nothing
        sessions.append("long", List.of(Message.user("last")));
        var texts = sessions.transcript("admin", "long").stream().map(Message::text).toList();
        assertEquals(many.size() + 2, texts.size());
        assertEquals("first", texts.getFirst());
        assertEquals(many.stream().map(Message::text).toList(), texts.subList(1, texts.size() - 1));
        assertEquals("last", texts.getLast());
    }

    @Test
    void aSessionWrittenBeforeItsRowKeptTheLastNumberGoesOnAfterIt() throws Exception {
        // a database at V10: messages numbered by MAX(seq), nothing on the session's row
        var before = TestStore.create(dialect, java.nio.file.Files.createDirectories(dir.resolve("v10")));
        try (var old = before.openUnmigrated()) {
            var scripts = dev.caduceus.platform.host.store.PlatformMigrations.scripts(old.dialect());
            dev.caduceus.platform.host.store.Migrations.apply(old, dev.caduceus.platform.host.store.Migrations.PLATFORM,
                    scripts.stream().filter(v -> v.version() < 11).toList());
            old.write(sql -> {
                sql.update("INSERT INTO sessions (session_id, last_used_at) VALUES ('kept', '2025-12-31T00:00:00Z')");
                for (int seq = 1; seq <= 3; seq++)
                    sql.update("INSERT INTO session_messages (session_id, seq, message_json, created_at) VALUES (?, ?, ?, ?)",
                            "kept", seq, json(Message.user("old" + seq)), "2025-12-31T00:00:00Z");
                return null;
            });
            dev.caduceus.platform.host.store.Migrations.apply(old, dev.caduceus.platform.host.store.Migrations.PLATFORM, scripts);
            sessions(old, START).append("kept", List.of(Message.user("new")));
            assertEquals(List.of("old1", "old2", "old3", "new"),
                    sessions(old, START).transcript("admin", "kept").stream().map(Message::text).toList());
        }
    }
}
