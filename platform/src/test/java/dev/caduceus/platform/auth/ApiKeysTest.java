package dev.caduceus.platform.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
    @TempDir Path home;

    @Test
    void generatesA64HexKeyIntoAnOwnerOnlyFileAndReadsItBackLater() throws Exception {
        var keys = new ApiKeys(home, new SecureRandom());
        var first = keys.resolve(Optional.empty(), "none");
        assertEquals(ApiKey.Origin.GENERATED, first.origin());
        assertTrue(first.value().matches("[0-9a-f]{64}"), first.value());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(home.resolve("api_key"))));

        var second = new ApiKeys(home, new SecureRandom()).resolve(Optional.empty(), "none");
        assertEquals(ApiKey.Origin.FILE, second.origin());
        assertEquals(first.value(), second.value());
    }

    @Test
    void aConfiguredKeyWinsOverTheFile() {
        var keys = new ApiKeys(home, new SecureRandom());
        keys.generate();
        var key = keys.resolve(Optional.of("  a-real-key-of-enough-length  "), "API_SERVER_KEY");
        assertEquals(ApiKey.Origin.CONFIGURED, key.origin());
        assertEquals("a-real-key-of-enough-length", key.value());
    }

    @Test
    void rotateReplacesTheKey() {
        var keys = new ApiKeys(home, new SecureRandom());
        var old = keys.generate();
        var fresh = keys.generate();
        assertNotEquals(old.value(), fresh.value());
        assertEquals(fresh.value(), keys.read().orElseThrow().value());
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
    void toStringNeverShowsTheKey() {
        var key = new ApiKeys(home, new SecureRandom()).generate();
        assertFalse(key.toString().contains(key.value()));
    }
}
