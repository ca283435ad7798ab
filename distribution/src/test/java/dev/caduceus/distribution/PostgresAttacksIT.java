package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.postgres.TestPostgres;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link LocalAttacksIT}'s attacks on a server whose store is PostgreSQL, reached through
 * {@code CADUCEUS_DATABASE_URL} with the password in the URL (the usual form), on the weakest
 * backend (commands run as the server user): the URL and its password must stay out of everything
 * the model reads (the environment, every process's {@code environ} and command line, the state
 * directory), and without them the database refuses the agent. The role and its password are this
 * test's own, so that no other string of the test server (its directory names) can pass for them.
 */
class PostgresAttacksIT extends LocalAttacksIT {
    private TestPostgres.Db db;
    private String role;
    private String password;

    @Override
    Map<String, String> serverEnvironment() {
        var shared = TestPostgres.shared().newDatabase();
        var random = new SecureRandom();
        var bytes = new byte[12];
        random.nextBytes(bytes);
        role = "victim_" + HexFormat.of().formatHex(bytes, 0, 4);
        password = "pg-pass-" + HexFormat.of().formatHex(bytes);
        try (var c = TestPostgres.shared().admin(); var st = c.createStatement()) {
            st.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
            st.execute("ALTER DATABASE " + shared.name() + " OWNER TO " + role);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        db = new TestPostgres.Db(shared.name(), shared.jdbcUrl(), role, password, shared.port());
        return Map.of("CADUCEUS_DATABASE_URL", db.url());
    }

    @Override
    Map<String, String> moreSecrets() {
        return Map.of("the database password", password, "CADUCEUS_DATABASE_URL", db.url());
    }

    @Test
    void theServerReallyRunsOnPostgresql() throws Exception {
        try (var c = db.connect(); var st = c.createStatement();
             var rs = st.executeQuery("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'caduceus_%'")) {
            assertTrue(rs.next() && rs.getInt(1) > 0, "the server made its schemas in " + db.name());
        }
    }

    @Test
    void theDatabaseRefusesTheAgentWithoutThePassword() throws Exception {
        var answer = attack("terminal", terminal("psql=$(ls /usr/lib/postgresql/*/bin/psql | head -1); "
                + "PGCONNECT_TIMEOUT=5 $psql -w 'host=127.0.0.1 port=" + db.port() + " user=" + role + " dbname=" + db.name()
                + "' -At -c 'SELECT 4242 + 1' 2>&1; echo \"exit=$?\"; env | grep -ci postgres"));
        assertTrue(answer.contains("exit=2"), "psql could not connect: " + answer);
        assertTrue(answer.contains("password"), "refused for want of the password: " + answer);
        assertFalse(answer.contains("4243"), answer);
    }

    @Test
    void noPartOfTheDatabaseUrlReachesTheModel() throws Exception {
        // a redaction of the whole URL would not hide a part of it: the password cut out, or the URL cut up
        var environs = "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done 2>/dev/null | grep -a '^CADUCEUS_DATABASE'";
        attack("terminal", terminal(environs + " | cut -d: -f3 | cut -d@ -f1"));
        attack("terminal", terminal(environs + " | fold -w 6"));
    }
}
