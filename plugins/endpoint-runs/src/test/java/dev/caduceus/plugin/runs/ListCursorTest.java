package dev.caduceus.plugin.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.caduceus.spi.http.HttpStatusException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ListCursorTest {

    @Test
    void roundTrips() {
        var cursor = new ListCursor(Instant.parse("2026-01-01T00:00:00.114Z"), "run_4b8f0c2d9e1a4b5c8d7e6f5a4b3c2d1e");
        var encoded = cursor.encode();
        assertEquals(cursor, ListCursor.decode(encoded));
        assertEquals("1767225600.114:run_4b8f0c2d9e1a4b5c8d7e6f5a4b3c2d1e",
                new String(Base64.getUrlDecoder().decode(encoded), StandardCharsets.UTF_8));
    }

    @Test
    void roundTripsWholeSecondsAndTruncatesBelowTheMillisecond() {
        var whole = new ListCursor(Instant.parse("2026-01-15T09:00:00Z"), "run_a");
        assertEquals(whole, ListCursor.decode(whole.encode()));
        var fine = new ListCursor(Instant.parse("2026-01-15T09:00:00.123456Z"), "run_a");
        assertEquals(Instant.parse("2026-01-15T09:00:00.123Z"), ListCursor.decode(fine.encode()).createdAt());
    }

    @Test
    void readsTheContractsExampleAndStandardBase64WithPadding() {
        var example = ListCursor.decode("MTc2NzIyNTYwMC4xMTQ6cnVuXzRiOGYw");
        assertEquals(new ListCursor(Instant.parse("2026-01-01T00:00:00.114Z"), "run_4b8f0"), example);
        // "…abc>?x" encodes to "…YmM+P3g=": a '+' and padding in the standard alphabet.
        var padded = Base64.getEncoder().encodeToString("1767225600.5:run_abc>?x".getBytes(StandardCharsets.UTF_8));
        assertEquals(new ListCursor(Instant.parse("2026-01-01T00:00:00.500Z"), "run_abc>?x"), ListCursor.decode(padded));
        assertEquals(new ListCursor(Instant.parse("2026-01-01T00:00:00.500Z"), "run_abc>?x"),
                ListCursor.decode(padded.replace('+', ' ')));
    }

    @ParameterizedTest
    @ValueSource(strings = {"!!!", "bm8tY29sb24", /* "no-colon" */ "YWJjOnJ1bl94", /* "abc:run_x" */
            "MTc2NzIyNTYwMDpydW5fYSBi", /* "1767225600:run_a b" */ "MTc2NzIyNTYwMDo", /* "1767225600:" */
            "LTE6cnVuX3g", /* "-1:run_x" */ "MS4yMzQ1OnJ1bl94" /* "1.2345:run_x" */})
    void rejectsWhatItDidNotWrite(String cursor) {
        var e = assertThrows(HttpStatusException.class, () -> ListCursor.decode(cursor));
        assertEquals("invalid_cursor", e.error().code());
        assertEquals(400, e.error().status());
    }
}
