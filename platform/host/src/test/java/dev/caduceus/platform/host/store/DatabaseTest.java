package dev.caduceus.platform.host.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.store.PluginDatabase.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatabaseTest {
    @TempDir
    Path dir;
    SqliteDatabase db;

    @BeforeEach
    void open() {
        db = SqliteDatabase.create(dir.resolve("nested/state/caduceus.db"));
        db.write(sql -> sql.update("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, data BLOB, flag INTEGER)"));
    }

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    void writesFromFiftyVirtualThreadsAllCommit() throws Exception {
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Integer>> futures = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                int n = i;
                futures.add(pool.submit(() -> db.write(sql -> {
                    int before = sql.queryOne("SELECT count(*) FROM t", r -> r.getInt(1)).orElseThrow();
                    sql.update("INSERT INTO t (id, name) VALUES (?, ?)", n, "row" + n);
                    return before;
                })));
            }
            for (var f : futures) f.get();
        }
        assertEquals((Object) (50), db.read(sql -> sql.queryOne("SELECT count(*) FROM t", r -> r.getInt(1)).orElseThrow()));
        assertEquals((Object) (49 * 50 / 2), db.read(sql -> sql.queryOne("SELECT sum(id) FROM t", r -> r.getInt(1)).orElseThrow()));
    }

    @Test
    void aSingleStatementIsAWriteOrAReadOfIt() {
        assertEquals(2, db.writeStatement(Migrations.PLATFORM, "INSERT INTO t (id, name) VALUES (?, ?), (?, ?)", 1, "one", 2, "two"));
        assertEquals(List.of("one", "two"), db.query(Migrations.PLATFORM, "SELECT name FROM t ORDER BY id", r -> r.getString(1)));
        var e = assertThrows(StoreException.class, () -> db.writeStatement(Migrations.PLATFORM, "INSERT INTO t (id) VALUES (1)"));
        assertTrue(e.getMessage().contains("INSERT INTO t"), e.getMessage());
        assertEquals(List.of(2), db.query(Migrations.PLATFORM, "SELECT count(*) FROM t", r -> r.getInt(1)));
    }

    /** Blocks the writer inside a write until the returned latch opens; returns once it is running. */
    private java.util.concurrent.CountDownLatch occupyWriter(java.util.concurrent.ExecutorService pool) throws Exception {
        var running = new java.util.concurrent.CountDownLatch(1);
        var release = new java.util.concurrent.CountDownLatch(1);
        pool.submit(() -> db.write(sql -> {
            running.countDown();
            release.await();
            return sql.update("INSERT INTO t (id, name) VALUES (1000, 'blocker')");
        }));
        running.await();
        return release;
    }

    private void awaitQueued(int writes) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (db.queuedWrites() < writes && System.nanoTime() < deadline) Thread.sleep(1);
        assertEquals(writes, db.queuedWrites());
    }

    /** Work of one numbered write. */
    private interface NumberedWrite {
        Integer run(dev.caduceus.spi.store.Sql sql, int n);
    }

    /** Ten writes queued behind one that holds the writer, so that they run as one group once it lets go. */
    private List<Future<Integer>> groupOfTen(java.util.concurrent.ExecutorService pool, NumberedWrite write) throws Exception {
        var release = occupyWriter(pool);
        List<Future<Integer>> futures = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            int n = i;
            futures.add(pool.submit(() -> db.write(sql -> write.run(sql, n))));
        }
        awaitQueued(10);
        release.countDown();
        return futures;
    }

    @Test
    void queuedWritesShareOneCommit() throws Exception {
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var futures = groupOfTen(pool, (sql, n) -> {
                sql.update("INSERT INTO t (id, name) VALUES (?, ?)", n, "row" + n);
                return db.read(r -> r.queryOne("SELECT count(*) FROM t", x -> x.getInt(1)).orElseThrow());
            });
            // a reader saw only the blocker's commit: the ten writes ran in one transaction
            for (var future : futures) assertEquals(1, future.get());
        }
        assertEquals(11, count());
    }

    @Test
    void aFailingWriteOfAGroupIsRolledBackAloneAndTheOthersCommitOnce() throws Exception {
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var futures = groupOfTen(pool, (sql, n) -> {
                sql.update("INSERT INTO t (id, name) VALUES (?, ?)", n, "row" + n);
                if (n == 5) throw new IllegalStateException("row 5 refused");
                return sql.update("UPDATE t SET name = name || '+' WHERE id = ?", n);
            });
            for (int i = 0; i < 10; i++) {
                if (i == 5) {
                    var e = assertThrows(java.util.concurrent.ExecutionException.class, futures.get(i)::get);
                    assertInstanceOf(StoreException.class, e.getCause());
                    assertInstanceOf(IllegalStateException.class, e.getCause().getCause());
                } else {
                    assertEquals(1, futures.get(i).get());
                }
            }
        }
        assertEquals(10, count());
        assertEquals(Optional.empty(), db.read(sql -> sql.queryOne("SELECT name FROM t WHERE id = 5", r -> r.getString(1))));
        // the writes that ran before the failure were rolled back with it and ran again: each once in the end
        assertEquals(List.of("row0+", "row1+", "row4+", "row9+"), db.read(sql -> sql.query(
                "SELECT name FROM t WHERE id IN (0, 1, 4, 9) ORDER BY id", r -> r.getString(1))));
    }

    /** Inserts its items in one statement and records each call's item count in table {@code calls}. */
    private final Database.MergedWork<Integer> insertAll = (sql, items) -> {
        var values = new StringBuilder();
        var args = new ArrayList<Object>();
        for (int n : items) {
            if (n < 0) throw new IllegalStateException("item " + n + " refused");
            values.append(values.isEmpty() ? "" : ", ").append("(?, ?)");
            args.add(n);
            args.add("item" + n);
        }
        sql.update("INSERT INTO t (id, name) VALUES " + values, args.toArray());
        sql.update("INSERT INTO calls (items) VALUES (?)", items.size());
    };

    /** The queued merged writes of {@code items}, plus a plain write (id 500) among them, run as one group. */
    private List<Future<?>> mergedGroup(java.util.concurrent.ExecutorService pool, int... items) throws Exception {
        db.write(sql -> sql.update("CREATE TABLE calls (seq INTEGER PRIMARY KEY, items INTEGER)"));
        var release = occupyWriter(pool);
        List<Future<?>> futures = new ArrayList<>();
        int queued = 0;
        for (int i = 0; i < items.length; i++) {
            int n = items[i];
            futures.add(pool.submit(() -> { db.writeMerged(Migrations.PLATFORM, insertAll, n); return null; }));
            awaitQueued(++queued);
            if (i == 1) { // third in the queue: the merged ones run after it, whatever their place
                futures.add(pool.submit(() -> db.write(sql -> sql.update("INSERT INTO t (id, name) VALUES (500, 'plain')"))));
                awaitQueued(++queued);
            }
        }
        release.countDown();
        return futures;
    }

    private List<Integer> calls() {
        return db.read(sql -> sql.query("SELECT items FROM calls ORDER BY seq", r -> r.getInt(1)));
    }

    @Test
    void mergedWritesOfOneGroupRunAsOneCallAndEachWaitsForTheCommit() throws Exception {
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (var f : mergedGroup(pool, 1, 2, 3, 4, 5)) f.get();
        }
        assertEquals(List.of(5), calls()); // one call for the five, not five
        assertEquals(List.of(1, 2, 3, 4, 5, 500, 1000), db.read(sql -> sql.query("SELECT id FROM t ORDER BY id", r -> r.getInt(1))));
        db.writeMerged(Migrations.PLATFORM, insertAll, 6); // alone: a call of its own
        assertEquals(List.of(5, 1), calls());
    }

    @Test
    void aMergedWriteThatFailsFailsAloneAndTheOthersOfItsGroupCommit() throws Exception {
        List<Future<?>> futures;
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            futures = mergedGroup(pool, 1, 2, -3, 4);
            for (var f : futures) {
                if (f == futures.get(3)) { // -3 (the plain write is the third future)
                    var e = assertThrows(java.util.concurrent.ExecutionException.class, f::get);
                    assertInstanceOf(StoreException.class, e.getCause());
                    assertTrue(e.getCause().getMessage().contains("item -3 refused"), e.getCause().getMessage());
                } else {
                    f.get();
                }
            }
        }
        assertEquals(List.of(1, 2, 4, 500, 1000), db.read(sql -> sql.query("SELECT id FROM t ORDER BY id", r -> r.getInt(1))));
        assertEquals(List.of(1, 1, 1), calls()); // the merged call was rolled back; each ran again alone
    }

    @Test
    void aWriteThatBreaksTheSharedTransactionFailsAloneAndTheOthersStillCommit() throws Exception {
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var release = occupyWriter(pool);
            List<Future<Integer>> futures = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                int n = i;
                futures.add(pool.submit(() -> db.write(sql -> {
                    int changed = sql.update("INSERT INTO t (id, name) VALUES (?, ?)", n, "row" + n);
                    if (n == 3) sql.update("ROLLBACK"); // ends whatever transaction it runs in
                    return changed;
                })));
            }
            awaitQueued(6);
            release.countDown();
            for (int i = 0; i < 6; i++) {
                if (i == 3) assertThrows(java.util.concurrent.ExecutionException.class, futures.get(i)::get);
                else assertEquals(1, futures.get(i).get());
            }
        }
        assertEquals(List.of(0, 1, 2, 4, 5, 1000), db.read(sql -> sql.query("SELECT id FROM t ORDER BY id", r -> r.getInt(1))));
    }

    @Test
    void aStatementThatWouldEndTheSharedTransactionIsRefused() {
        for (var sql : List.of("COMMIT", "  rollback", "-- note\nEND", "/* x */ begin immediate", "SAVEPOINT s",
                "release s", "START TRANSACTION", ";abort")) {
            var e = assertThrows(StoreException.class, () -> db.write(w -> w.update(sql)), sql);
            assertTrue(e.getMessage().contains("Transactions are the database's"), e.getMessage());
        }
        assertFalse(HandleSql.controlsTransaction("INSERT INTO t (id, name) VALUES (1, 'commit')"));
        assertFalse(HandleSql.controlsTransaction("UPDATE t SET name = 'x'"));
        assertFalse(HandleSql.controlsTransaction("ENDPOINT"), "a word is compared whole");
    }

    @Test
    void failingWriteRollsBackAndIsWrapped() {
        var e = assertThrows(StoreException.class, () -> db.write(sql -> {
            sql.update("INSERT INTO t (id, name) VALUES (1, 'x')");
            throw new IllegalStateException("boom");
        }));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(0, count());
    }

    @Test
    void storeExceptionFromWorkIsRethrownAsIs() {
        var mine = new StoreException("mine", null);
        assertTrue(mine == assertThrows(StoreException.class, () -> db.write(sql -> { throw mine; })));
    }

    @Test
    void readSeesCommittedDataAndBindsAllParameterTypes() {
        db.write(sql -> sql.update("INSERT INTO t (id, name, data, flag) VALUES (?, ?, ?, ?)", 7L, "seven",
                new byte[] {1, 2, 3}, true));
        db.write(sql -> sql.update("INSERT INTO t (id, name, data, flag) VALUES (?, ?, ?, ?)", 8, null, null, false));
        var row = db.read(sql -> sql.queryOne("SELECT name, data, flag FROM t WHERE id = ?",
                r -> r.getString(1) + ":" + r.getBytes(2).length + ":" + r.getInt(3), 7));
        assertEquals(Optional.of("seven:3:1"), row);
        assertEquals(List.of("8:null:0"), db.read(sql -> sql.query("SELECT id, name, flag FROM t WHERE name IS NULL",
                r -> r.getInt(1) + ":" + r.getString(2) + ":" + r.getInt(3))));
        assertEquals(Optional.empty(), db.read(sql -> sql.queryOne("SELECT name FROM t WHERE id = 99", r -> r.getString(1))));
    }

    @Test
    void updateReturnsChangedRows() {
        db.write(sql -> sql.update("INSERT INTO t (id, name) VALUES (1, 'a'), (2, 'b')"));
        assertEquals((Object) (2), db.write(sql -> sql.update("UPDATE t SET name = ?", "c")));
    }

    @Test
    void walModeAndBusyTimeoutOnReaders() {
        assertEquals("wal", db.read(sql -> sql.queryOne("PRAGMA journal_mode", r -> r.getString(1)).orElseThrow()));
        for (int i = 0; i < SqliteDatabase.READERS * 2; i++) {
            assertEquals((Object) (5000), db.read(sql -> sql.queryOne("PRAGMA busy_timeout", r -> r.getInt(1)).orElseThrow()));
            assertEquals((Object) (1), db.read(sql -> sql.queryOne("PRAGMA foreign_keys", r -> r.getInt(1)).orElseThrow()));
        }
        assertEquals((Object) (5000), db.write(sql -> sql.queryOne("PRAGMA busy_timeout", r -> r.getInt(1)).orElseThrow()));
    }

    @Test
    void databaseFilesAreOwnerOnly() throws Exception {
        Path file = dir.resolve("nested/state/caduceus.db");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        Path wal = dir.resolve("nested/state/caduceus.db-wal");
        assertTrue(Files.exists(wal));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(wal)));
    }

    @Test
    void existingFileWithWideModeIsRestrictedOnOpen() throws Exception {
        Path other = dir.resolve("other.db");
        Files.createFile(other);
        Files.setPosixFilePermissions(other, PosixFilePermissions.fromString("rw-rw-r--"));
        try (var second = Database.open(other)) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(other)));
        }
    }

    @Test
    void pingAnswersAndFailsAfterClose() {
        assertTrue(db.ping(Duration.ofSeconds(2)));
        db.close();
        assertFalse(db.ping(Duration.ofSeconds(2)));
    }

    @Test
    void closeFinishesQueuedWritesThenRefuses() throws Exception {
        List<Future<Integer>> futures = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var release = occupyWriter(pool);
            for (int i = 0; i < 20; i++) {
                int n = i;
                futures.add(pool.submit(() -> db.write(sql -> sql.update("INSERT INTO t (id) VALUES (?)", n))));
            }
            awaitQueued(20); // every write is queued behind the blocker when the close begins
            release.countDown();
            db.close();
        }
        int committed = 0;
        for (var f : futures) {
            try {
                committed += f.get();
            } catch (java.util.concurrent.ExecutionException e) {
                assertEquals("database is closed", e.getCause().getMessage());
            }
        }
        var e = assertThrows(StoreException.class, () -> db.write(sql -> 1));
        assertEquals("database is closed", e.getMessage());
        assertThrows(StoreException.class, () -> db.read(sql -> 1));
        try (var reopened = Database.open(dir.resolve("nested/state/caduceus.db"))) {
            assertEquals((Object) (committed), reopened.read(sql -> sql.queryOne("SELECT count(*) FROM t WHERE id < 1000",
                    r -> r.getInt(1)).orElseThrow()));
        }
    }

    @Test
    void nestedWriteIsRefusedInsteadOfDeadlocking() {
        var e = assertThrows(StoreException.class, () -> db.write(sql -> db.write(inner -> 1)));
        assertTrue(e.getMessage().contains("inside a write"), e.getMessage());
    }

    @Test
    void pluginDatabaseDelegates() {
        var plugin = new PluginDatabaseImpl(db, "sample");
        plugin.write(sql -> sql.update("INSERT INTO t (id) VALUES (1)"));
        assertEquals((Object) (1), plugin.read(sql -> sql.queryOne("SELECT count(*) FROM t", r -> r.getInt(1)).orElseThrow()));
        assertEquals(dev.caduceus.spi.store.PluginDatabase.Dialect.SQLITE, plugin.dialect());
    }

    private int count() {
        return db.read(sql -> sql.queryOne("SELECT count(*) FROM t", r -> r.getInt(1)).orElseThrow());
    }
}
