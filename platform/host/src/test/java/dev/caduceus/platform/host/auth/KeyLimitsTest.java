package dev.caduceus.platform.host.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.http.Caller;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A key's own limits ({@code caduceus key add … --max-file-bytes SIZE}): the sizes the option takes, their round trip
 * through the stored policy, how {@code key list} shows them, and how a plugin applies one ({@link Caller#limit}:
 * the smaller of the key's and the deployment's).
 */
class KeyLimitsTest {
    @Test
    void maxFileBytesTakesBytesOrKMGAndRefusesTheRest() {
        assertEquals(512L, KeyPolicy.bytes("512", "--max-file-bytes"));
        assertEquals(200L * 1024, KeyPolicy.bytes("200K", "--max-file-bytes"));
        assertEquals(50L * 1024 * 1024, KeyPolicy.bytes("50M", "--max-file-bytes"));
        assertEquals(2L * 1024 * 1024 * 1024, KeyPolicy.bytes("2GiB", "--max-file-bytes"));
        for (var bad : new String[] {"", "0", "-5", "5T", "lots", "1.5G"}) {
            var e = assertThrows(IllegalArgumentException.class, () -> KeyPolicy.bytes(bad, "--max-file-bytes"), bad);
            assertTrue(e.getMessage().startsWith("--max-file-bytes: '" + bad + "' is not a size"), e.getMessage());
        }
    }

    @Test
    void theLimitIsStoredShownAndAppliedAsTheSmallerOfTheTwo() {
        var policy = KeyPolicy.NONE.withMaxFileBytes("100K");
        assertEquals(Map.of(KeyPolicy.MAX_FILE_BYTES, 102_400L), policy.limits());
        assertEquals(policy, KeyPolicy.fromJson(policy.toJson()), "kept in policy_json");
        assertEquals("files.max_bytes=102400", policy.describe());
        assertEquals(KeyPolicy.NONE, KeyPolicy.fromJson(KeyPolicy.NONE.toJson()));
        var both = policy.withMaxStorageBytes("1G");
        assertEquals(Map.of(KeyPolicy.MAX_FILE_BYTES, 102_400L, KeyPolicy.MAX_STORAGE_BYTES, 1L << 30), both.limits());
        assertEquals(both, KeyPolicy.fromJson(both.toJson()));
        assertEquals("files.max_bytes=102400 files.quota_bytes=1073741824", both.describe());

        var caller = new Caller("tenant", false, Set.of(), Optional.empty(), policy.limits());
        assertEquals(102_400L, caller.limit(KeyPolicy.MAX_FILE_BYTES, 512L * 1024 * 1024), "the key's is lower");
        assertEquals(1_000L, caller.limit(KeyPolicy.MAX_FILE_BYTES, 1_000L), "the deployment's is lower");
        assertEquals(7L, caller.limit("files.quota_bytes", 7L), "a setting the key does not lower");
        assertEquals(7L, Caller.tenant("t").limit(KeyPolicy.MAX_FILE_BYTES, 7L));
    }
}
