package dev.caduceus.platform.host.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ApiKeysTest {
    private static final String HASH_LINE = "sha256:[0-9a-f]{32}:[0-9a-f]{64}\n";

    @TempDir Path home;

    @Test
    void generatesA64HexKeyAndStoresOnlyItsSaltedHashInAnOwnerOnlyFile() throws Exception {
        var keys = new ApiKeys(home, new SecureRandom());
        var first = assertInstanceOf(ApiKey.Generated.class, keys.resolve(Optional.empty(), "none"));
        assertTrue(first.value().matches("[0-9a-f]{64}"), first.value());
        var file = home.resolve("api_key");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        var stored = Files.readString(file);
        assertTrue(stored.matches(HASH_LINE), stored);
        assertFalse(stored.contains(first.value()), "the key file never holds the key");

        var second = assertInstanceOf(ApiKey.Stored.class, new ApiKeys(home, new SecureRandom())
                .resolve(Optional.empty(), "none"));
        assertTrue(second.matches(first.value()), "the key generated earlier authenticates");
        assertEquals(stored, Files.readString(file), "reading a hashed key file leaves it as it is");
    }

    @Test
    void aHashedKeyMatchesOnlyTheExactKey() {
        var key = new ApiKeys(home, new SecureRandom()).generate();
        var stored = key.retained();
        assertInstanceOf(ApiKey.Stored.class, stored);
        assertTrue(stored.matches(key.value()));
        for (var wrong : new String[] {"", key.value().substring(1), key.value() + "0", key.value().toUpperCase(),
                " " + key.value(), "x".repeat(64)})
            assertFalse(stored.matches(wrong), wrong);
    }

    @Test
    void twoFilesForTheSameKeyDifferByTheirSalt() {
        var hashes = new java.util.HashSet<String>();
        for (int i = 0; i < 3; i++) hashes.add(KeyHash.of("the-same-key-0123456789", new SecureRandom()).format());
        assertEquals(3, hashes.size());
    }

    @Test
    void aClearTextKeyFileIsReplacedByItsHashAndTheKeyKeepsWorking() throws Exception {
        var file = home.resolve("api_key");
        var old = "5c1e0a7b2d9f4e6a8b3c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f09";
        Files.writeString(file, old + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

        var key = new ApiKeys(home, new SecureRandom()).resolve(Optional.empty(), "none");
        var stored = assertInstanceOf(ApiKey.Stored.class, key);
        assertTrue(stored.matches(old), "the clear-text key keeps authenticating");
        var content = Files.readString(file);
        assertTrue(content.matches(HASH_LINE), content);
        assertFalse(content.contains(old));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertFalse(Files.exists(home.resolve("api_key.tmp")));

        var again = new ApiKeys(home, new SecureRandom()).read().orElseThrow();
        assertTrue(again.matches(old), "still after a restart");
        assertEquals(content, Files.readString(file), "migrated once");
    }

    @Test
    void anUnusableClearTextKeyFileIsRefusedAndLeftAsItIs() throws Exception {
        var file = home.resolve("api_key");
        Files.writeString(file, "short\n");
        var e = assertThrows(ApiKeyException.class, () -> new ApiKeys(home, new SecureRandom()).read());
        assertTrue(e.getMessage().startsWith(file + " is too short"), e.getMessage());
        assertEquals("short\n", Files.readString(file));
    }

    @Test
    void aMalformedHashIsRefusedNamingTheFileAndTheWayOut() throws Exception {
        Files.writeString(home.resolve("api_key"), "sha256:abc:def\n");
        var e = assertThrows(ApiKeyException.class, () -> new ApiKeys(home, new SecureRandom()).read());
        assertTrue(e.getMessage().contains(home.resolve("api_key").toString()), e.getMessage());
        assertTrue(e.getMessage().contains("caduceus key rotate"), e.getMessage());
    }

    @Test
    void aConfiguredKeyWinsOverTheFile() {
        var keys = new ApiKeys(home, new SecureRandom());
        keys.generate();
        var key = assertInstanceOf(ApiKey.Configured.class,
                keys.resolve(Optional.of("  a-real-key-of-enough-length  "), "API_SERVER_KEY"));
        assertEquals("a-real-key-of-enough-length", key.value());
        assertTrue(key.matches("a-real-key-of-enough-length"));
        assertFalse(key.matches("a-real-key-of-enough-lengt"));
    }

    @Test
    void rotateReplacesTheKey() {
        var keys = new ApiKeys(home, new SecureRandom());
        var old = keys.generate();
        var fresh = keys.generate();
        assertNotEquals(old.value(), fresh.value());
        var stored = keys.read().orElseThrow();
        assertTrue(stored.matches(fresh.value()));
        assertFalse(stored.matches(old.value()), "the old key stops working");
    }

    @Test
    void aShortKeyIsRefusedNamingItsSource() {
        var keys = new ApiKeys(home, new SecureRandom());
        var e = assertThrows(ApiKeyException.class, () -> keys.resolve(Optional.of("short-key"), "API_SERVER_KEY"));
        assertEquals("API_SERVER_KEY is too short (9 characters). Use at least 16, or unset it and Caduceus "
                + "will generate one.", e.getMessage());
        assertFalse(Files.exists(home.resolve("api_key")), "nothing generated when a configured key is bad");
    }

    @ParameterizedTest
    @ValueSource(strings = {"change-me", "Your_API_Key_Here", "<paste your key here>", "xxxxxxxxxxxxxxxxxxxx",
            "PLACEHOLDER", "insert key here"})
    void placeholdersAreRefused(String value) {
        var e = assertThrows(ApiKeyException.class,
                () -> new ApiKeys(home, new SecureRandom()).resolve(Optional.of(value), "server.api_key in /x/config.yaml"));
        assertTrue(e.getMessage().startsWith("server.api_key in /x/config.yaml is"), e.getMessage());
        assertFalse(e.getMessage().contains(value), "the message never repeats the key");
    }

    @Test
    void noToStringShowsTheKey() {
        var keys = new ApiKeys(home, new SecureRandom());
        var generated = keys.generate();
        var configured = keys.resolve(Optional.of("a-real-key-of-enough-length"), "API_SERVER_KEY");
        var stored = keys.read().orElseThrow();
        assertFalse(generated.toString().contains(generated.value()), generated.toString());
        assertFalse(configured.toString().contains("a-real-key-of-enough-length"), configured.toString());
        var hashLine = stored.hash().format();
        for (var part : hashLine.split(":"))
            assertFalse(stored.toString().contains(part) && part.length() > 6, stored.toString());
    }
}
