package dev.caduceus.platform.host.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.store.PluginDatabase.StoreException;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The host database on a real PostgreSQL server (Debian's, started by {@link TestPostgres}). */
class PostgresDatabaseTest {
    TestPostgres.Db pg;
    Database db;

    @BeforeEach
    void connect() {
        pg = TestPostgres.shared().newDatabase();
        db = Database.connect(PostgresTarget.parse(pg.url(), Optional.empty(), Optional.empty()), 4);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static Script v(int version, String sql) {
        return new Script(version, "step " + version, sql, "test:V" + version);
    }

    private static String stackOf(Throwable t) {
        if (t == null) return "no failure";
        var out = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }

    @Test
    void platformMigrationsApplyAndEveryOwnerGetsItsOwnSchema() {
        assertEquals(Dialect.POSTGRESQL, db.dialect());
        assertTrue(db.file().isEmpty());
        assertFalse(db.describe().contains(pg.password()), db.describe());
        assertEquals(11, Migrations.apply(db, Migrations.PLATFORM, PlatformMigrations.scripts(Dialect.POSTGRESQL)).size());
        Migrations.apply(db, "tool-memory", List.of(v(1, "CREATE TABLE entries (id TEXT PRIMARY KEY, body TEXT);")));
        // the same table name in another owner's schema does not collide
        Migrations.apply(db, "endpoint-jobs", List.of(v(1, "CREATE TABLE entries (id TEXT PRIMARY KEY);")));
        new PluginDatabaseImpl(db, "tool-memory").write(sql -> sql.update("INSERT INTO entries VALUES ('a', 'memory')"));
        assertEquals((Object) 0L, new PluginDatabaseImpl(db, "endpoint-jobs").read(sql ->
                sql.queryOne("SELECT count(*) FROM entries", r -> r.getLong(1)).orElseThrow()));
        assertEquals("memory", new PluginDatabaseImpl(db, "tool-memory").read(sql ->
                sql.queryOne("SELECT body FROM caduceus_tool_memory.entries", r -> r.getString(1)).orElseThrow()));
        assertEquals((Object) 0L, db.read(sql -> sql.queryOne("SELECT count(*) FROM runs", r -> r.getLong(1)).orElseThrow()));
        var owners = db.read(sql -> sql.query("SELECT name || '=' || owner FROM schema_objects WHERE name LIKE '%entries'"
                + " ORDER BY name", r -> r.getString(1)));
        assertEquals(List.of("caduceus_endpoint_jobs.entries=endpoint-jobs", "caduceus_tool_memory.entries=tool-memory"), owners);
        assertEquals(java.util.Map.of("endpoint-jobs", 1, "platform", 11, "tool-memory", 1), Migrations.appliedVersions(db));
    }

    @Test
    void v6MovesAJobRunsJobIdIntoItsOrigin() {
        var scripts = PlatformMigrations.scripts(Dialect.POSTGRESQL);
        Migrations.apply(db, Migrations.PLATFORM, scripts.stream().filter(s -> s.version() < 6).toList());
        db.write(sql -> {
            sql.update("INSERT INTO runs (run_id, status, created_at, updated_at, job_id, owner) "
                    + "VALUES ('run_job', 'completed', 1, 1, '0123456789ab', 'admin')");
            return null;
        });
        assertEquals(6, Migrations.apply(db, Migrations.PLATFORM, scripts).size(), "V6 to V11");
        assertEquals("job:0123456789ab", db.read(sql -> sql.queryOne("SELECT origin FROM runs WHERE run_id = 'run_job'",
                r -> r.getString(1)).orElseThrow()));
    }

    @Test
    void aMigrationTouchingAnotherOwnersTableIsRefusedAndRolledBack() {
        Migrations.apply(db, Migrations.PLATFORM, PlatformMigrations.scripts(Dialect.POSTGRESQL));
        Migrations.apply(db, "endpoint-responses", List.of(v(1, "CREATE TABLE responses (id TEXT);")));
        var e = assertThrows(MigrationException.class, () -> Migrations.apply(db, "tool-memory", List.of(v(1,
                "CREATE TABLE memory_entries (id TEXT);\nALTER TABLE caduceus_endpoint_responses.responses ADD COLUMN stolen TEXT;"))));
        assertTrue(e.getMessage().contains("alters table caduceus_endpoint_responses.responses, which is owned by endpoint-responses"),
                e.getMessage());
        assertEquals((Object) 0L, db.read(sql -> sql.queryOne("SELECT count(*) FROM information_schema.tables WHERE table_name = "
                + "'memory_entries'", r -> r.getLong(1)).orElseThrow()));
        var drop = assertThrows(MigrationException.class,
                () -> Migrations.apply(db, "x", List.of(v(1, "DROP TABLE caduceus_platform.runs;"))));
        assertTrue(drop.getMessage().contains("caduceus_platform.runs") && drop.getMessage().contains("owned by platform"),
                drop.getMessage());
    }

    @Test
    void aDatabaseMigratedByANewerReleaseIsRefusedNamingTheVersions() {
        Migrations.apply(db, "a", List.of(v(1, "CREATE TABLE t1 (id TEXT);"), v(2, "CREATE TABLE t2 (id TEXT);")));
        var e = assertThrows(MigrationException.class, () -> Migrations.apply(db, "a", List.of(v(1, "CREATE TABLE t1 (id TEXT);"))));
        assertTrue(e.getMessage().contains("at migration V2 of a, newer than this version of Caduceus knows (V1)"), e.getMessage());
    }

    @Test
    void nodesMigratingAtTheSameTimeApplyEachScriptOnce() throws Exception {
        var scripts = PlatformMigrations.scripts(Dialect.POSTGRESQL);
        var target = PostgresTarget.parse(pg.url(), Optional.empty(), Optional.empty());
        int nodes = 3;
        var start = new CountDownLatch(1);
        try (var pool = Executors.newFixedThreadPool(nodes)) {
            var results = new ArrayList<Future<Integer>>();
            for (int i = 0; i < nodes; i++) {
                results.add(pool.submit(() -> {
                    try (var node = Database.connect(target, 2)) {
                        start.await();
                        return Migrations.apply(node, Migrations.PLATFORM, scripts).size();
                    }
                }));
            }
            start.countDown();
            int applied = 0;
            for (var r : results) applied += r.get();
            assertEquals(scripts.size(), applied);
        }
        assertEquals((Object) (long) scripts.size(), db.read(sql -> sql.queryOne(
                "SELECT count(*) FROM schema_history WHERE owner = 'platform'", r -> r.getLong(1)).orElseThrow()));
    }

    @Test
    void concurrentReadThenInsertWritesBehaveAsIfSerialized() throws Exception {
        Migrations.apply(db, "counter", List.of(v(1, "CREATE TABLE counter (n BIGINT NOT NULL);\nINSERT INTO counter VALUES (0);")));
        var store = new PluginDatabaseImpl(db, "counter");
        int writers = 8, each = 25;
        var start = new CountDownLatch(1);
        try (var pool = Executors.newFixedThreadPool(writers)) {
            var done = new ArrayList<Future<?>>();
            for (int w = 0; w < writers; w++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        store.write(sql -> {
                            long n = sql.queryOne("SELECT n FROM counter", r -> r.getLong(1)).orElseThrow();
                            return sql.update("UPDATE counter SET n = ?", n + 1); // lost updates, unless serialized
                        });
                    }
                    return null;
                }));
            }
            start.countDown();
            for (var f : done) f.get();
        }
        assertEquals((Object) ((long) writers * each), store.read(sql -> sql.queryOne("SELECT n FROM counter", r -> r.getLong(1)).orElseThrow()));
    }

    @Test
    void aSingleStatementRunsOnItsOwnInItsOwnersSchema() {
        Migrations.apply(db, "a", List.of(v(1, "CREATE TABLE t (id TEXT PRIMARY KEY);")));
        Migrations.apply(db, "b", List.of(v(1, "CREATE TABLE t (id TEXT PRIMARY KEY);")));
        var a = new PluginDatabaseImpl(db, "a");
        var b = new PluginDatabaseImpl(db, "b");
        assertEquals(1, db.writeStatement("a", "INSERT INTO t VALUES (?)", "in-a"));
        assertEquals(2, db.writeStatement("b", "INSERT INTO t VALUES (?), (?)", "in-b", "also-in-b"));
        assertEquals(List.of("in-a"), a.query("SELECT id FROM t ORDER BY id", r -> r.getString(1)));
        assertEquals(List.of("also-in-b", "in-b"), b.query("SELECT id FROM t ORDER BY id", r -> r.getString(1)));
        // committed on its own: a transaction's read sees it
        assertEquals(List.of("in-a"), a.read(sql -> sql.query("SELECT id FROM t", r -> r.getString(1))));
        // a failing statement names itself, stores nothing and leaves its connection usable
        var e = assertThrows(StoreException.class, () -> db.writeStatement("a", "INSERT INTO t VALUES (?), (?)", "new", "in-a"));
        assertFalse(e.unavailable());
        assertTrue(e.getMessage().contains("INSERT INTO t"), e.getMessage());
        for (int i = 0; i < 12; i++) // more than the pool holds: every connection of it is used again
            assertEquals(List.of("in-a"), a.query("SELECT id FROM t", r -> r.getString(1)));
        var bad = assertThrows(StoreException.class, () -> a.query("SELECT nope FROM t", r -> r.getString(1)));
        assertTrue(bad.getMessage().contains("SELECT nope"), bad.getMessage());
    }

    @Test
    void singleStatementUpsertsOfOneRowQueueOnItInsteadOfConflicting() throws Exception {
        // at READ COMMITTED an upsert waits for the row's lock and adds to what the holder committed; at
        // SERIALIZABLE the same statements would fail with 40001 and run again
        Migrations.apply(db, "counter", List.of(v(1, "CREATE TABLE counter (id TEXT PRIMARY KEY, n BIGINT NOT NULL);")));
        var metrics = new dev.caduceus.platform.host.metrics.MetricsRegistry();
        db.observe(metrics.host());
        try (var other = Database.connect(PostgresTarget.parse(pg.url(), Optional.empty(), Optional.empty()), 4)) {
            other.observe(metrics.host());
            var nodes = List.of(db, other);
            int writers = 16, each = 25;
            var start = new CountDownLatch(1);
            try (var pool = Executors.newFixedThreadPool(writers)) {
                var done = new ArrayList<Future<?>>();
                for (int w = 0; w < writers; w++) {
                    var node = nodes.get(w % 2);
                    done.add(pool.submit(() -> {
                        start.await();
                        for (int i = 0; i < each; i++)
                            node.writeStatement("counter", "INSERT INTO counter (id, n) VALUES ('hot', 1) "
                                    + "ON CONFLICT (id) DO UPDATE SET n = counter.n + 1");
                        return null;
                    }));
                }
                start.countDown();
                for (var f : done) f.get();
            }
            assertEquals(List.of((long) writers * each), db.query("counter", "SELECT n FROM counter", r -> r.getLong(1)));
        }
        var exposition = new String(metrics.scrape(null).body(), java.nio.charset.StandardCharsets.UTF_8);
        var conflicts = java.util.regex.Pattern.compile("(?m)^caduceus_db_write_conflicts_total (\\S+)$").matcher(exposition);
        assertTrue(conflicts.find(), exposition);
        assertEquals(0.0, Double.parseDouble(conflicts.group(1)), "none ran again");
    }

    @Test
    void everyNumberTypeBindsAsANumber() {
        Migrations.apply(db, "numbers", List.of(v(1, "CREATE TABLE n (a BIGINT, b NUMERIC, c BIGINT, d INTEGER, e DOUBLE PRECISION);")));
        var plugin = new PluginDatabaseImpl(db, "numbers");
        plugin.write(sql -> sql.update("INSERT INTO n VALUES (?, ?, ?, ?, ?)", new java.util.concurrent.atomic.AtomicLong(1L << 40),
                new java.math.BigInteger("123456789012345678901234567890"), (short) 7, true, 2.5f));
        var row = plugin.read(sql -> sql.queryOne("SELECT a, b, c, d, e FROM n", r -> r.getLong(1) + " " + r.getBigDecimal(2)
                + " " + r.getLong(3) + " " + r.getInt(4) + " " + r.getDouble(5)).orElseThrow());
        assertEquals((1L << 40) + " 123456789012345678901234567890 7 1 2.5", row);
    }

    @Test
    void aFailingWriteRollsBackAndReportsTheStatement() {
        Migrations.apply(db, "a", List.of(v(1, "CREATE TABLE t (id TEXT PRIMARY KEY);")));
        var store = new PluginDatabaseImpl(db, "a");
        var e = assertThrows(StoreException.class, () -> store.write(sql -> {
            sql.update("INSERT INTO t VALUES ('x')");
            return sql.update("INSERT INTO t VALUES ('x')");
        }));
        assertFalse(e.unavailable());
        assertTrue(e.getMessage().contains("INSERT INTO t"), e.getMessage());
        assertEquals((Object) 0L, store.read(sql -> sql.queryOne("SELECT count(*) FROM t", r -> r.getLong(1)).orElseThrow()));
        // the connection is usable afterwards, with the right schema
        store.write(sql -> sql.update("INSERT INTO t VALUES ('y')"));
        assertEquals((Object) 1L, store.read(sql -> sql.queryOne("SELECT count(*) FROM t", r -> r.getLong(1)).orElseThrow()));
    }

    @Test
    void aWrongPasswordAnUnreachableHostAndAMissingDatabaseFailClearlyWithoutThePassword() throws Exception {
        var wrong = assertThrows(StoreException.class, () -> Database.connect(PostgresTarget.parse(
                "postgresql://" + pg.user() + ":not-the-password@127.0.0.1:" + pg.port() + "/" + pg.name(),
                Optional.empty(), Optional.empty()), 1));
        assertTrue(wrong.getMessage().contains("password authentication failed"), wrong.getMessage());
        assertFalse(wrong.getMessage().contains("not-the-password"), wrong.getMessage());
        int closedPort;
        try (var s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        var unreachable = assertThrows(StoreException.class, () -> Database.connect(PostgresTarget.parse(
                "postgresql://u:secret@127.0.0.1:" + closedPort + "/db", Optional.empty(), Optional.empty()), 1));
        assertTrue(unreachable.unavailable());
        assertTrue(unreachable.getMessage().contains("127.0.0.1:" + closedPort), unreachable.getMessage());
        assertFalse(unreachable.getMessage().contains("secret"), unreachable.getMessage());
        var missing = assertThrows(StoreException.class, () -> Database.connect(PostgresTarget.parse(
                pg.url() + "_nope", Optional.empty(), Optional.empty()), 1));
        assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
        var unknown = assertThrows(StoreException.class, () -> Database.connect(PostgresTarget.parse(
                "postgresql://u:secret@no-such-host.invalid/db", Optional.empty(), Optional.empty()), 1));
        assertTrue(unknown.getMessage().contains("unknown host no-such-host.invalid"), unknown.getMessage());
    }

    @Test
    void aServerThatDropsItsConnectionsIsReconnectedToWithoutLosingAWrite() throws Exception {
        Migrations.apply(db, "a", List.of(v(1, "CREATE TABLE t (id TEXT);")));
        var store = new PluginDatabaseImpl(db, "a");
        store.write(sql -> sql.update("INSERT INTO t VALUES ('before')"));
        store.read(sql -> sql.query("SELECT id FROM t", r -> r.getString(1)));
        // cut every connection of this database, as a server restart or a failover does
        try (var admin = pg.connect(); var st = admin.createStatement()) {
            st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + pg.name()
                    + "' AND pid <> pg_backend_pid()");
        }
        store.write(sql -> sql.update("INSERT INTO t VALUES ('after')"));
        assertEquals(List.of("after", "before"), store.read(sql -> sql.query("SELECT id FROM t ORDER BY id", r -> r.getString(1))));
        // the single statements' connections too: a read runs again, a write lost before it was sent as well
        store.query("SELECT id FROM t", r -> r.getString(1));
        db.writeStatement("a", "INSERT INTO t VALUES ('statement before')");
        try (var admin = pg.connect(); var st = admin.createStatement()) {
            st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + pg.name()
                    + "' AND pid <> pg_backend_pid()");
        }
        assertEquals(List.of("after", "before", "statement before"), store.query("SELECT id FROM t ORDER BY id", r -> r.getString(1)));
        try (var admin = pg.connect(); var st = admin.createStatement()) {
            st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + pg.name()
                    + "' AND pid <> pg_backend_pid()");
        }
        assertEquals(1, db.writeStatement("a", "INSERT INTO t VALUES ('statement after')"));
        assertEquals(List.of("after", "before", "statement after", "statement before"),
                store.query("SELECT id FROM t ORDER BY id", r -> r.getString(1)), "written once");
        assertTrue(db.ping(java.time.Duration.ofSeconds(5)));
    }

    @Test
    void aServerThatCannotBeReachedMakesWorkFailAsUnavailable() throws Exception {
        Migrations.apply(db, "a", List.of(v(1, "CREATE TABLE t (id TEXT);")));
        try (var admin = TestPostgres.shared().admin(); var st = admin.createStatement()) {
            st.execute("ALTER DATABASE " + pg.name() + " ALLOW_CONNECTIONS false");
            st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + pg.name()
                    + "' AND pid <> pg_backend_pid()");
        }
        var store = new PluginDatabaseImpl(db, "a");
        try {
            var e = assertThrows(StoreException.class, () -> store.write(sql -> sql.update("INSERT INTO t VALUES ('x')")));
            assertTrue(e.unavailable(), () -> stackOf(e));
            assertFalse(db.ping(java.time.Duration.ofSeconds(5)));
        } finally {
            try (var admin = TestPostgres.shared().admin(); var st = admin.createStatement()) {
                st.execute("ALTER DATABASE " + pg.name() + " ALLOW_CONNECTIONS true");
            }
        }
        store.write(sql -> sql.update("INSERT INTO t VALUES ('back')")); // recovers by itself
        assertEquals(List.of("back"), store.read(sql -> sql.query("SELECT id FROM t", r -> r.getString(1))));
    }
}
