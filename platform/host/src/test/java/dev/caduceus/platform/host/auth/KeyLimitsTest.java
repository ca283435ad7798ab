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

    /** {@code --budget-usd 20 --budget-period week} and {@code --tpm}: parsed, kept in policy_json, shown, refused when wrong. */
    @Test
    void aBudgetAndTokensPerMinuteAreStoredAndShown() {
        var policy = KeyPolicy.NONE.withBudget("20.50", "week").withTokensPerMinute("90000");
        assertEquals(new java.math.BigDecimal("20.5"), policy.budget().orElseThrow().usd());
        assertEquals(Budget.Period.WEEK, policy.budget().orElseThrow().period());
        assertEquals(20_500_000_000_000L, policy.budget().orElseThrow().pico());
        assertEquals(90_000L, policy.tokensPerMinute());
        assertEquals(policy, KeyPolicy.fromJson(policy.toJson()), "kept in policy_json");
        assertEquals("model.tpm=90000 budget=20.5 USD/week", policy.describe());
        assertEquals(Budget.Period.MONTH, KeyPolicy.NONE.withBudget("1", null).budget().orElseThrow().period());
        for (var bad : new String[][] {{"0", null}, {"-1", null}, {"lots", null}, {"1", "year"}, {"0.0000001", null},
                {"2000000", null}, {null, "day"}}) {
            var e = assertThrows(IllegalArgumentException.class, () -> KeyPolicy.NONE.withBudget(bad[0], bad[1]),
                    String.join(" ", String.valueOf(bad[0]), String.valueOf(bad[1])));
            assertTrue(e.getMessage().startsWith("--budget"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> KeyPolicy.NONE.withTokensPerMinute("0"));
    }

    @Test
    void budgetPeriodsAreCalendarPeriodsInUtc() {
        var at = java.time.Instant.parse("2026-12-05T13:45:00Z"); // a Saturday
        assertEquals(java.time.Instant.parse("2026-12-05T00:00:00Z"), Budget.Period.DAY.start(at));
        assertEquals(java.time.Instant.parse("2026-12-06T00:00:00Z"), Budget.Period.DAY.end(at));
        assertEquals(java.time.Instant.parse("2026-11-30T00:00:00Z"), Budget.Period.WEEK.start(at));
        assertEquals(java.time.Instant.parse("2026-12-07T00:00:00Z"), Budget.Period.WEEK.end(at));
        assertEquals(java.time.Instant.parse("2026-12-01T00:00:00Z"), Budget.Period.MONTH.start(at));
        assertEquals(java.time.Instant.parse("2027-01-01T00:00:00Z"), Budget.Period.MONTH.end(at));
    }
}
