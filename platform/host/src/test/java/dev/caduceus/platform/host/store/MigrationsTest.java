package dev.caduceus.platform.host.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MigrationsTest {
    @TempDir
    Path dir;
    Database db;

    @BeforeEach
    void open() {
        db = Database.open(dir.resolve("caduceus.db"));
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static Script v(int version, String sql) {
        return new Script(version, "step " + version, sql, "test:V" + version);
    }

    @Test
    void appliesOnceAndIsIdempotentOnReopen() {
        var scripts = List.of(
                v(1, "CREATE TABLE memory_entries (id TEXT PRIMARY KEY, body TEXT);\n"
                        + "CREATE INDEX memory_body ON memory_entries (body);\n"
                        + "INSERT INTO memory_entries VALUES ('a', 'text; with semicolon');"),
                v(2, "ALTER TABLE memory_entries ADD COLUMN created_at TEXT;"));
        assertEquals(2, Migrations.apply(db, "tool-memory", scripts).size());
        assertEquals(List.of(), Migrations.apply(db, "tool-memory", scripts));
        db.close();
        db = Database.open(dir.resolve("caduceus.db"));
        assertEquals(List.of(), Migrations.apply(db, "tool-memory", scripts));
        assertEquals(1, count("SELECT count(*) FROM memory_entries"));
        assertEquals(2, count("SELECT count(*) FROM schema_history WHERE owner = 'tool-memory'"));
        assertEquals(List.of("memory_body=tool-memory", "memory_entries=tool-memory"), owners("memory%"));
        var checksum = db.read(sql -> sql.queryOne("SELECT checksum FROM schema_history WHERE version = 1",
                r -> r.getString(1)).orElseThrow());
        assertEquals(scripts.get(0).checksum(), checksum);
        assertEquals(64, checksum.length());
    }

    @Test
    void laterScriptIsAppliedOnTopOfEarlierOnes() {
        Migrations.apply(db, "jobs", List.of(v(1, "CREATE TABLE jobs (id TEXT);")));
        var applied = Migrations.apply(db, "jobs", List.of(v(1, "CREATE TABLE jobs (id TEXT);"),
                v(2, "CREATE TABLE job_runs (id TEXT);")));
        assertEquals(List.of(2), applied.stream().map(Script::version).toList());
    }

    @Test
    void changedChecksumIsRefusedNamingOwnerVersionAndOrigin() {
        Migrations.apply(db, "jobs", List.of(v(1, "CREATE TABLE jobs (id TEXT);")));
        var e = assertThrows(MigrationException.class, () -> Migrations.apply(db, "jobs",
                List.of(v(1, "CREATE TABLE jobs (id TEXT, extra TEXT);"), v(2, "CREATE TABLE later (id TEXT);"))));
        assertTrue(e.getMessage().contains("V1 of jobs (test:V1)"), e.getMessage());
        assertTrue(e.getMessage().contains("checksum"), e.getMessage());
        assertEquals(0, count("SELECT count(*) FROM sqlite_master WHERE name = 'later'"));
    }

    @Test
    void scriptTouchingAnotherOwnersTableIsRefusedAndRolledBack() {
        Migrations.apply(db, "endpoint-responses", List.of(v(1, "CREATE TABLE responses (id TEXT);")));
        var e = assertThrows(MigrationException.class, () -> Migrations.apply(db, "tool-memory",
                List.of(v(1, "CREATE TABLE memory_entries (id TEXT);\n"
                        + "ALTER TABLE responses ADD COLUMN stolen TEXT;"))));
        assertTrue(e.getMessage().contains("V1 of tool-memory"), e.getMessage());
        assertTrue(e.getMessage().contains("alters table responses, which is owned by endpoint-responses"), e.getMessage());
        assertEquals(0, count("SELECT count(*) FROM sqlite_master WHERE name = 'memory_entries'"));
        assertEquals(0, count("SELECT count(*) FROM schema_history WHERE owner = 'tool-memory'"));
        assertEquals(List.of(), owners("memory%"));
        assertEquals(1, count("SELECT count(*) FROM sqlite_master WHERE sql NOT LIKE '%stolen%' AND name = 'responses'"));
    }

    @Test
    void droppingOrIndexingAnotherOwnersTableIsRefused() {
        Migrations.apply(db, "endpoint-responses", List.of(v(1, "CREATE TABLE responses (id TEXT);")));
        var drop = assertThrows(MigrationException.class,
                () -> Migrations.apply(db, "x", List.of(v(1, "DROP TABLE responses;"))));
        assertTrue(drop.getMessage().contains("drops table responses"), drop.getMessage());
        var index = assertThrows(MigrationException.class,
                () -> Migrations.apply(db, "x", List.of(v(1, "CREATE INDEX r_id ON responses (id);"))));
        assertTrue(index.getMessage().contains("creates index r_id on table responses"), index.getMessage());
        var platform = assertThrows(MigrationException.class,
                () -> Migrations.apply(db, "x", List.of(v(1, "DROP TABLE schema_history;"))));
        assertTrue(platform.getMessage().contains("owned by platform"), platform.getMessage());
        assertEquals(1, count("SELECT count(*) FROM sqlite_master WHERE name = 'responses'"));
    }

    @Test
    void ownerMayDropItsOwnTable() {
        Migrations.apply(db, "a", List.of(v(1, "CREATE TABLE a_t (id TEXT);"), v(2, "DROP TABLE a_t;")));
        assertEquals(List.of(), owners("a_t"));
    }

    @Test
    void brokenSqlFailsAndLeavesNothingBehind() {
        var e = assertThrows(MigrationException.class, () -> Migrations.apply(db, "a",
                List.of(v(1, "CREATE TABLE ok_t (id TEXT);\nCREATE TABLE oops (;"))));
        assertTrue(e.getMessage().contains("V1 of a (test:V1) failed and was rolled back"), e.getMessage());
        assertEquals(0, count("SELECT count(*) FROM sqlite_master WHERE name = 'ok_t'"));
    }

    @Test
    void aScriptThatFailsAmongSeveralLeavesTheOnesBeforeItAppliedAndNamesItself() {
        // pending scripts run in one transaction; when one fails they run again one each, as they always did
        var e = assertThrows(MigrationException.class, () -> Migrations.apply(db, "a", List.of(
                v(1, "CREATE TABLE a_one (id TEXT);"),
                v(2, "ALTER TABLE a_one ADD COLUMN name TEXT;"),
                v(3, "CREATE TABLE a_three (id TEXT);\nCREATE TABLE oops (;"),
                v(4, "CREATE TABLE a_four (id TEXT);"))));
        assertTrue(e.getMessage().contains("V3 of a (test:V3) failed and was rolled back"), e.getMessage());
        assertEquals(List.of(1, 2), db.read(sql -> sql.query(
                "SELECT version FROM schema_history WHERE owner = 'a' ORDER BY version", r -> r.getInt(1))));
        assertEquals(List.of("a_one=a"), owners("a_%"));
        assertEquals(1, count("SELECT count(*) FROM pragma_table_info('a_one') WHERE name = 'name'"));
        assertEquals(0, count("SELECT count(*) FROM sqlite_master WHERE name IN ('a_three', 'a_four')"));
    }

    @Test
    void aScriptAmongSeveralThatTouchesAnotherOwnersTableIsRefusedAfterTheOnesBeforeIt() {
        Migrations.apply(db, "endpoint-responses", List.of(v(1, "CREATE TABLE responses (id TEXT);")));
        var e = assertThrows(MigrationException.class, () -> Migrations.apply(db, "tool-memory", List.of(
                v(1, "CREATE TABLE memory_entries (id TEXT);"),
                v(2, "CREATE INDEX memory_id ON memory_entries (id);"), // its own table, made by the script before
                v(3, "ALTER TABLE responses ADD COLUMN stolen TEXT;"))));
        assertTrue(e.getMessage().contains("V3 of tool-memory"), e.getMessage());
        assertEquals(List.of("memory_entries=tool-memory", "memory_id=tool-memory"), owners("memory%"));
        assertEquals(2, count("SELECT count(*) FROM schema_history WHERE owner = 'tool-memory'"));
        assertEquals(0, count("SELECT count(*) FROM pragma_table_info('responses') WHERE name = 'stolen'"));
    }

    @Test
    void olderPendingScriptIsRefused() {
        Migrations.apply(db, "a", List.of(v(1, "CREATE TABLE t1 (id TEXT);"), v(3, "CREATE TABLE t3 (id TEXT);")));
        var e = assertThrows(MigrationException.class, () -> Migrations.apply(db, "a", List.of(
                v(1, "CREATE TABLE t1 (id TEXT);"), v(2, "CREATE TABLE t2 (id TEXT);"), v(3, "CREATE TABLE t3 (id TEXT);"))));
        assertTrue(e.getMessage().contains("forward only"), e.getMessage());
    }

    @Test
    void fromJarListsOwnScriptsSortedNumerically() throws IOException {
        Map<String, String> entries = new LinkedHashMap<>();
        entries.put("db/migration/tool-memory/sqlite/V10__later.sql", "CREATE TABLE ten (id TEXT);");
        entries.put("db/migration/tool-memory/sqlite/V2__add_index.sql", "CREATE TABLE two (id TEXT);");
        entries.put("db/migration/tool-memory/sqlite/V1__init.sql", "CREATE TABLE one (id TEXT);");
        entries.put("db/migration/endpoint-jobs/sqlite/V1__jobs.sql", "CREATE TABLE jobs (id TEXT);");
        entries.put("db/migration/tool-memory/postgresql/V1__init.sql", "CREATE TABLE pg (id TEXT);");
        entries.put("dev/caduceus/plugin/memory/MemoryPlugin.class", "not really");
        Path jar = jar("tool-memory.jar", entries);
        var scripts = Migrations.fromJar(jar, "tool-memory");
        assertEquals(List.of(1, 2, 10), scripts.stream().map(Script::version).toList());
        assertEquals("add index", scripts.get(1).description());
        assertEquals("CREATE TABLE two (id TEXT);", scripts.get(1).sql());
        assertEquals(jar + "!db/migration/tool-memory/sqlite/V2__add_index.sql", scripts.get(1).origin());
        assertEquals(3, Migrations.apply(db, "tool-memory", scripts).size());
        assertEquals(0, count("SELECT count(*) FROM sqlite_master WHERE name IN ('jobs', 'pg')"));
    }

    @Test
    void fromJarRejectsBadFileNamesNamingJarAndEntry() throws IOException {
        Path jar = jar("bad.jar", Map.of("db/migration/p/sqlite/V1_missing_underscore.sql", "SELECT 1;"));
        var e = assertThrows(MigrationException.class, () -> Migrations.fromJar(jar, "p"));
        assertTrue(e.getMessage().contains(jar + "!db/migration/p/sqlite/V1_missing_underscore.sql"), e.getMessage());
        Path dup = jar("dup.jar", Map.of("db/migration/p/sqlite/V1__a.sql", "SELECT 1;",
                "db/migration/p/sqlite/V01__b.sql", "SELECT 1;"));
        assertTrue(assertThrows(MigrationException.class, () -> Migrations.fromJar(dup, "p"))
                .getMessage().contains("have version 1"));
    }

    @Test
    void jarWithoutScriptsGivesEmptyList() throws IOException {
        assertEquals(List.of(), Migrations.fromJar(jar("empty.jar", Map.of("a.txt", "x")), "p"));
    }

    private Path jar(String name, Map<String, String> entries) throws IOException {
        Path jar = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(jar); var jos = new JarOutputStream(out)) {
            for (var e : entries.entrySet()) {
                jos.putNextEntry(new JarEntry(e.getKey()));
                jos.write(e.getValue().getBytes(StandardCharsets.UTF_8));
                jos.closeEntry();
            }
        }
        return jar;
    }

    private int count(String query) {
        return db.read(sql -> sql.queryOne(query, r -> r.getInt(1)).orElseThrow());
    }

    private List<String> owners(String like) {
        return db.read(sql -> sql.query("SELECT name, owner FROM schema_objects WHERE name LIKE ? ORDER BY name",
                r -> r.getString(1) + "=" + r.getString(2), like));
    }
}
