package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The assembled server's database. On PostgreSQL (a throwaway server, {@link TestPostgres}) it serves with
 * the driver and the pool from lib/, keeps each owner's tables in its own schema, {@code db migrate} and
 * {@code db check} report per owner, and every way the database can be wrong at start is a clear exit: a
 * malformed URL, a wrong password, an unreachable server (status 2), a database newer than this version
 * (status 1, naming both versions). On SQLite the two commands work the same way on the state file.
 */
class DatabaseIT {
    /** The platform's newest migration, as this build knows it ({@code V6} when its sixth script landed). */
    static final String LATEST = "V" + dev.caduceus.platform.host.store.PlatformMigrations.scripts().getLast().version();
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir Path home;

    private static Map<String, String> on(TestPostgres.Db db) {
        var env = new HashMap<>(Caduceus.KEY_ENV);
        env.put("CADUCEUS_DATABASE_URL", db.url());
        return env;
    }

    private Caduceus.Result run(Map<String, String> env, String... args) throws Exception {
        try (var process = Caduceus.launch(home, env, args)) {
            int status = process.awaitExit();
            return new Caduceus.Result(status, process.stdout(), process.stderr());
        }
    }

    private static List<String> tables(TestPostgres.Db db, String schema) throws Exception {
        var names = new ArrayList<String>();
        try (var c = db.connect(); var st = c.prepareStatement(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name")) {
            st.setString(1, schema);
            try (var rows = st.executeQuery()) {
                while (rows.next()) names.add(rows.getString(1));
            }
        }
        return names;
    }

    @Test
    void servesAChatCompletionWithEachOwnersTablesInItsOwnSchema() throws Exception {
        var db = TestPostgres.shared().newDatabase();
        try (var upstream = ScriptedUpstream.start()) {
            var env = Caduceus.upstreamEnv(upstream);
            env.put("CADUCEUS_DATABASE_URL", db.url());
            try (var server = Caduceus.serve(home, env)) {
                upstream.enqueue(Turn.text("Paris.").usage(5, 1));
                var response = server.send("POST", "/v1/chat/completions",
                        "{\"model\":\"hermes-agent\",\"messages\":[{\"role\":\"user\",\"content\":\"Capital of France?\"}]}",
                        Caduceus.KEY_AUTH);
                assertEquals(200, response.statusCode(), response.body());
                assertEquals("Paris.", JSON.readTree(response.body()).path("choices").get(0).path("message")
                        .path("content").asText());
                var health = JSON.readTree(server.get("/health/detailed", Caduceus.KEY_AUTH).body());
                assertEquals("ok", health.path("readiness").path("checks").path("database").path("status").asText(),
                        health.toString());

                var environ = new String(Files.readAllBytes(Path.of("/proc/" + server.process.pid() + "/environ")),
                        java.nio.charset.StandardCharsets.UTF_8);
                assertFalse(environ.contains(db.password()), "the URL, password and all, is a secret the JVM's environment lacks");
                assertFalse(server.stderr().contains("HikariPool"), "the pool's info lines stay quiet:\n" + server.stderr());
                assertFalse(Files.exists(home.resolve("caduceus.db")), "no SQLite file beside PostgreSQL");
                assertTrue(server.stdout().contains("  database: postgresql jdbc:postgresql://caduceus@127.0.0.1:" + db.port()
                        + "/" + db.name()), "the start-up says where the database is:\n" + server.stdout());
            }
        }
        var platform = tables(db, "caduceus_platform");
        assertTrue(platform.containsAll(List.of("api_keys", "cluster_nodes", "run_events", "runs", "schema_history",
                "schema_objects", "session_messages", "sessions")), platform.toString());
        var responses = tables(db, "caduceus_endpoint_responses");
        assertFalse(responses.isEmpty(), "endpoint-responses has its own schema");
        assertTrue(tables(db, "public").isEmpty(), "nothing in public: " + tables(db, "public"));
        var session = 0;
        try (var c = db.connect(); var st = c.createStatement();
             var rows = st.executeQuery("SELECT count(*) FROM caduceus_platform.session_messages")) {
            rows.next();
            session = rows.getInt(1);
        }
        assertEquals(2, session, "the turn's transcript is in PostgreSQL");
    }

    @Test
    void dbMigrateAppliesPerOwnerThenIsUpToDateAndDbCheckAgrees() throws Exception {
        var db = TestPostgres.shared().newDatabase();
        var env = on(db);
        var fresh = run(env, "db", "check");
        assertEquals(1, fresh.status(), fresh.all());
        assertTrue(fresh.stdout().contains("Database: postgresql jdbc:postgresql://caduceus@127.0.0.1:" + db.port()), fresh.all());
        assertTrue(fresh.stdout().contains("platform") && fresh.stdout().contains("V0 / " + LATEST), fresh.all());
        assertTrue(fresh.stdout().contains("pending migrations"), fresh.all());
        assertFalse(fresh.all().contains(db.password()), fresh.all());

        var migrate = run(env, "db", "migrate");
        assertEquals(0, migrate.status(), migrate.all());
        assertTrue(migrate.stdout().contains("platform") && migrate.stdout().contains("applied V1 sessions, V2 runs"),
                migrate.all());
        assertTrue(migrate.stdout().lines().anyMatch(l -> l.contains("endpoint-responses") && l.contains("applied V1")),
                migrate.all());
        assertFalse(tables(db, "caduceus_endpoint_jobs").isEmpty(), "every enabled plugin's migrations ran");

        var again = run(env, "db", "migrate");
        assertEquals(0, again.status(), again.all());
        assertTrue(again.stdout().lines().anyMatch(l -> l.contains("platform") && l.contains("up to date (" + LATEST + ")")), again.all());
        assertTrue(again.stdout().contains("Up to date."), again.all());

        var check = run(env, "db", "check");
        assertEquals(0, check.status(), check.all());
        assertTrue(check.stdout().lines().anyMatch(l -> l.contains("platform") && l.contains(LATEST + " / " + LATEST) && l.contains("up to date")),
                check.all());
        assertTrue(check.stdout().lines().anyMatch(l -> l.contains("endpoint-responses") && l.contains("up to date")),
                check.all());
        assertTrue(check.stdout().contains("Nodes:\n  none"), check.all());
        assertTrue(check.stdout().contains("Up to date."), check.all());
    }

    @Test
    void onSqliteTheDbCommandsWorkOnTheStateFile() throws Exception {
        var env = new HashMap<>(Caduceus.KEY_ENV);
        env.put("CADUCEUS_DATABASE_URL", "");                            // not the suite's PostgreSQL, if it asks
        var check = run(env, "db", "check");
        assertEquals(1, check.status(), check.all());
        assertTrue(check.stdout().contains("Database: sqlite " + home.resolve("caduceus.db")), check.all());
        var migrate = run(env, "db", "migrate");
        assertEquals(0, migrate.status(), migrate.all());
        assertTrue(migrate.stdout().contains("applied V1 sessions"), migrate.all());
        var again = run(env, "db", "check");
        assertEquals(0, again.status(), again.all());
        assertTrue(again.stdout().lines().anyMatch(l -> l.contains("platform") && l.contains(LATEST + " / " + LATEST)), again.all());
        var usage = run(env, "db");
        assertEquals(2, usage.status(), usage.all());
        assertTrue(usage.stdout().contains("migrate") && usage.stdout().contains("check"), usage.all());
    }

    @Test
    void aMalformedUrlIsExitTwoNamingTheKeyAndItsSource() throws Exception {
        var env = new HashMap<>(Caduceus.KEY_ENV);
        env.put("CADUCEUS_DATABASE_URL", "mysql://root:hunter2@db.example:3306/caduceus");
        for (var command : List.of(List.of("serve"), List.of("db", "check"), List.of("db", "migrate"))) {
            var result = run(env, command.toArray(String[]::new));
            assertEquals(2, result.status(), command + ": " + result.all());
            assertTrue(result.stderr().contains("database.url") && result.stderr().contains("CADUCEUS_DATABASE_URL"),
                    command + ": " + result.all());
            assertFalse(result.all().contains("hunter2"), "never the password: " + result.all());
            assertFalse(result.stderr().contains("\tat "), "no stack trace: " + result.all());
        }
    }

    @Test
    void aWrongPasswordIsExitTwoWithTheUrlWithoutItAndTheDriversReason() throws Exception {
        var db = TestPostgres.shared().newDatabase();
        var env = new HashMap<>(Caduceus.KEY_ENV);
        env.put("CADUCEUS_DATABASE_URL", db.url().replace(":" + db.password() + "@", ":not-the-password@"));
        for (var command : List.of(List.of("serve"), List.of("db", "check"), List.of("db", "migrate"))) {
            var result = run(env, command.toArray(String[]::new));
            assertEquals(2, result.status(), command + ": " + result.all());
            assertTrue(result.stderr().contains("jdbc:postgresql://caduceus@127.0.0.1:" + db.port() + "/" + db.name()),
                    command + ": " + result.all());
            assertTrue(result.stderr().contains("password authentication failed"), command + ": " + result.all());
            assertFalse(result.all().contains("not-the-password"), "never the password: " + result.all());
            assertFalse(result.stderr().contains("\tat "), "no stack trace: " + result.all());
        }
    }

    @Test
    void anUnreachableServerIsExitTwo() throws Exception {
        int closed;
        try (var socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        var env = new HashMap<>(Caduceus.KEY_ENV);
        env.put("CADUCEUS_DATABASE_URL", "postgresql://caduceus:secret-pw@127.0.0.1:" + closed + "/caduceus");
        for (var command : List.of(List.of("serve"), List.of("db", "check"), List.of("db", "migrate"))) {
            var result = run(env, command.toArray(String[]::new));
            assertEquals(2, result.status(), command + ": " + result.all());
            assertTrue(result.stderr().contains("127.0.0.1:" + closed), command + ": " + result.all());
            assertFalse(result.all().contains("secret-pw"), "never the password: " + result.all());
        }
    }

    @Test
    void aDatabaseMigratedByANewerReleaseIsRefusedNamingBothVersions() throws Exception {
        var db = TestPostgres.shared().newDatabase();
        var env = on(db);
        assertEquals(0, run(env, "db", "migrate").status());
        try (var c = db.connect(); var st = c.createStatement()) {
            st.execute("INSERT INTO caduceus_platform.schema_history (owner, version, description, checksum, applied_at) "
                    + "VALUES ('platform', 42, 'from the future', 'x', '2030-01-01T00:00:00Z')");
        }
        for (var command : List.of(List.of("serve"), List.of("db", "migrate"))) {
            var result = run(env, command.toArray(String[]::new));
            assertNotEquals(0, result.status(), command + ": " + result.all());
            assertTrue(result.stderr().contains("V42") && result.stderr().contains(LATEST), command + ": " + result.all());
            assertTrue(result.stderr().contains("newer"), command + ": " + result.all());
            assertFalse(result.stderr().contains("\tat "), "no stack trace: " + result.all());
        }
        var check = run(env, "db", "check");
        assertEquals(1, check.status(), check.all());
        assertTrue(check.stdout().lines().anyMatch(l -> l.contains("platform") && l.contains("V42 / " + LATEST)
                && l.contains("NEWER")), check.all());
    }
}
