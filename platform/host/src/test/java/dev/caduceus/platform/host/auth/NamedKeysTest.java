package dev.caduceus.platform.host.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.Poll;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.TestStore;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Named keys on SQLite and on PostgreSQL. A change made through another {@link Database} (the CLI beside
 * a server, another node) counts at the next lookup on SQLite (the stamp file) and within about a second
 * on PostgreSQL (the table's stamp, read at most once a second).
 */
@ParameterizedClass
@EnumSource(Dialect.class)
class NamedKeysTest {
    @Parameter Dialect dialect;
    @TempDir Path dir;
    TestStore store;
    Database db;
    NamedKeys keys;

    @BeforeEach
    void open() {
        store = TestStore.create(dialect, dir);
        db = store.open();
        keys = new NamedKeys(db, new SecureRandom(), Clock.systemUTC());
    }

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    void anAddedKeyIsFoundWithItsPolicyAndStoredOnlyHashed() throws Exception {
        var policy = KeyPolicy.parse("chat,models", "ci-model", "60");
        var added = keys.add("ci", policy);
        assertTrue(added.key().startsWith(NamedKeys.PREFIX), added.key());
        var found = keys.find(added.key()).orElseThrow();
        assertEquals("ci", found.name());
        assertEquals(List.of("chat", "models"), found.policy().families());
        assertEquals(Optional.of("ci-model"), found.policy().modelName());
        assertEquals(60, found.policy().requestsPerMinute());
        // cdk_<16 hex>_<43 base64url>: the secret itself may hold '_', so cut by position, not by the last '_'
        var secret = added.key().substring(NamedKeys.PREFIX.length() + 16 + 1);
        assertEquals(43, secret.length(), added.key());
        if (dialect == Dialect.SQLITE) {
            var bytes = Files.readAllBytes(dir.resolve("caduceus.db"));
            assertFalse(new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).contains(secret),
                    "the database holds no key");
        }
        var row = db.read(sql -> sql.queryOne("SELECT name || key_id || key_hash || policy_json FROM api_keys",
                r -> r.getString(1)).orElseThrow());
        assertFalse(row.contains(secret), "the row holds no key: " + row);
        assertFalse(added.toString().contains(secret));
    }

    @Test
    void wrongOrMalformedKeysAreNotFound() {
        var added = keys.add("ci", KeyPolicy.NONE);
        var key = added.key();
        var tampered = key.substring(0, key.length() - 1) + (key.endsWith("A") ? "B" : "A");
        assertEquals(Optional.empty(), keys.find(tampered));
        assertEquals(Optional.empty(), keys.find("cdk_0123456789abcdef_" + "x".repeat(43)));
        assertEquals(Optional.empty(), keys.find("cdk_short"));
        assertEquals(Optional.empty(), keys.find(key + "x"));
    }

    @Test
    void aRevokedKeyStopsAndItsNameIsNeverReused() {
        var added = keys.add("alice", KeyPolicy.NONE);
        keys.revoke("alice");
        assertEquals(Optional.empty(), keys.find(added.key()));
        assertTrue(keys.list().getFirst().revokedAt().isPresent());
        var again = assertThrows(ApiKeyException.class, () -> keys.add("alice", KeyPolicy.NONE));
        assertTrue(again.getMessage().contains("exists already"), again.getMessage());
        assertTrue(assertThrows(ApiKeyException.class, () -> keys.revoke("alice")).getMessage().contains("revoked already"));
        assertTrue(assertThrows(ApiKeyException.class, () -> keys.revoke("bob")).getMessage().contains("no key named 'bob'"));
    }

    @Test
    void anotherProcessesAddAndRevokeCount() throws InterruptedException {
        try (var otherDb = store.open()) {
            var server = new NamedKeys(otherDb, new SecureRandom(), Clock.systemUTC()); // the running server's copy
            assertEquals(Optional.empty(), server.find("cdk_0123456789abcdef_" + "x".repeat(43)));
            var added = keys.add("late", KeyPolicy.parse(null, "late-model", null));        // the CLI, meanwhile
            if (dialect == Dialect.SQLITE) assertTrue(server.find(added.key()).isPresent(), "at the next lookup");
            else Poll.until(Duration.ofSeconds(10), "the added key is accepted by the other node", () -> server.find(added.key()).isPresent());
            assertEquals("late", server.find(added.key()).orElseThrow().name());
            assertEquals(Optional.of("late-model"), server.policyOf("late").modelName());
            keys.revoke("late");
            if (dialect == Dialect.SQLITE) assertTrue(server.find(added.key()).isEmpty(), "at the next lookup");
            else Poll.until(Duration.ofSeconds(10), "the revoked key is refused by the other node", () -> server.find(added.key()).isEmpty());
            assertEquals(KeyPolicy.NONE, server.policyOf("late"));
        }
    }

    @Test
    void aNodeSeesItsOwnChangeAtOnce() {
        var added = keys.add("mine", KeyPolicy.NONE);
        assertTrue(keys.find(added.key()).isPresent());
        keys.revoke("mine");
        assertTrue(keys.find(added.key()).isEmpty());
    }

    @Test
    void namesAndPoliciesAreChecked() {
        for (var bad : new String[] {"Admin", "admin", "anonymous", "-x", "a b", "x".repeat(65), ""})
            assertThrows(ApiKeyException.class, () -> keys.add(bad, KeyPolicy.NONE), bad);
        for (var rpm : new String[] {"0", "-1", "ten", "1.5", "2000000"})
            assertThrows(IllegalArgumentException.class, () -> KeyPolicy.parse(null, null, rpm), rpm);
        assertThrows(IllegalArgumentException.class, () -> KeyPolicy.parse("chat,,runs", null, null));
        assertThrows(IllegalArgumentException.class, () -> KeyPolicy.parse("Chat", null, null));
        assertThrows(IllegalArgumentException.class, () -> KeyPolicy.parse(null, "bad model name", null));
        assertEquals("-", KeyPolicy.NONE.describe());
    }

    @Test
    void theListNeverHoldsAKey() {
        var added = keys.add("ci", KeyPolicy.parse(null, null, "5"));
        var entries = keys.list();
        assertEquals(1, entries.size());
        assertFalse(entries.toString().contains(added.key().substring(21)));
        assertEquals("rpm=5", entries.getFirst().policy().describe());
    }
}
