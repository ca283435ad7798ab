package dev.caduceus.support.ids;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import org.junit.jupiter.api.Test;

class RandomIdsTest {
    @Test
    void aPrefixThenTheDigitsAskedForInLowercaseHex() {
        for (int digits : new int[] {1, 29, 32}) {
            var id = RandomIds.hex("run_", digits);
            assertTrue(id.matches("run_[0-9a-f]{" + digits + "}"), id);
        }
    }

    @Test
    void everyDigitVariesAndIdsDoNotRepeat() {
        var ids = new HashSet<String>();
        var seen = new boolean[29][16];
        for (int i = 0; i < 5_000; i++) {
            var id = RandomIds.hex("chatcmpl-", 29);
            assertTrue(ids.add(id), "repeated " + id);
            for (int d = 0; d < 29; d++) seen[d][Character.digit(id.charAt(9 + d), 16)] = true;
        }
        for (int d = 0; d < 29; d++)
            for (int v = 0; v < 16; v++) assertTrue(seen[d][v], "digit " + d + " never took " + v);
        assertEquals(5_000, ids.size());
    }

    @Test
    void refusesANonAsciiPrefixAndNoDigits() {
        assertThrows(IllegalArgumentException.class, () -> RandomIds.hex("rün_", 8));
        assertThrows(IllegalArgumentException.class, () -> RandomIds.hex("run_", 0));
    }
}
