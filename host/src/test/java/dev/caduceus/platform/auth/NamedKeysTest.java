package dev.caduceus.platform.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.store.Database;
import dev.caduceus.platform.store.Migrations;
import dev.caduceus.platform.store.PlatformMigrations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NamedKeysTest {
    @TempDir Path dir;
    Database db;
    NamedKeys keys;

    @BeforeEach
    void open() {
        db = Database.open(dir.resolve("caduceus.db"));
        Migrations.apply(db, Migrations.PLATFORM, PlatformMigrations.scripts());
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
        var secret = added.key().substring(added.key().lastIndexOf('_') + 1);
        var bytes = Files.readAllBytes(dir.resolve("caduceus.db"));
        assertFalse(new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).contains(secret),
                "the database holds no key");
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
    void anotherProcessesAddAndRevokeCountAtTheNextLookup() {
        try (var otherDb = Database.open(dir.resolve("caduceus.db"))) {
            var server = new NamedKeys(otherDb, new SecureRandom(), Clock.systemUTC()); // the running server's copy
            assertEquals(Optional.empty(), server.find("cdk_0123456789abcdef_" + "x".repeat(43)));
            var added = keys.add("late", KeyPolicy.parse(null, "late-model", null));        // the CLI, meanwhile
            assertEquals("late", server.find(added.key()).orElseThrow().name());
            assertEquals(Optional.of("late-model"), server.policyOf("late").modelName());
            keys.revoke("late");
            assertEquals(Optional.empty(), server.find(added.key()));
            assertEquals(KeyPolicy.NONE, server.policyOf("late"));
        }
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
