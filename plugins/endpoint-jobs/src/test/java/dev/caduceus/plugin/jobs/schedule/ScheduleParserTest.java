package dev.caduceus.plugin.jobs.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ScheduleParserTest {
    static final Instant NOW = Instant.parse("2026-01-15T09:00:00Z");
    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    static Schedule parse(String text) throws InvalidScheduleException {
        return ScheduleParser.parse(text, ZoneOffset.UTC, NOW);
    }

    @ParameterizedTest
    @CsvSource({"every 30m,30", "every 2h,120", "EVERY 1 Day,1440", "every 5 minutes,5", "every 3hrs,180",
            "every 1min,1", "every 2 hours,120", "every 1d,1440"})
    void intervalsInEveryUnit(String text, long minutes) throws Exception {
        var s = assertInstanceOf(Schedule.Interval.class, parse(text));
        assertEquals(minutes, s.minutes());
        assertEquals("{\"kind\":\"interval\",\"minutes\":" + minutes + ",\"display\":\"every " + minutes + "m\"}",
                s.json().toString());
        assertTrue(s.recurring());
        assertEquals(NOW.plusSeconds(minutes * 60), s.nextAfter(NOW).orElseThrow());
    }

    @Test
    void cronWithZoneAndDisplay() throws Exception {
        var s = assertInstanceOf(Schedule.Cron.class, ScheduleParser.parse("0  9 * *   *", BERLIN, NOW));
        assertEquals("{\"kind\":\"cron\",\"expr\":\"0 9 * * *\",\"tz\":\"Europe/Berlin\","
                + "\"display\":\"0 9 * * * (Europe/Berlin)\"}", s.json().toString());
        // 09:00 in Berlin is 08:00 UTC in winter; 09:00 UTC is already past it today
        assertEquals(Instant.parse("2026-01-16T08:00:00Z"), s.nextAfter(NOW).orElseThrow());
    }

    @Test
    void oneShotTimestampsHonorOffsetsAndReadNaiveTimesInTheZone() throws Exception {
        var z = assertInstanceOf(Schedule.Once.class, parse("2026-01-16T10:30:00Z"));
        assertEquals(Instant.parse("2026-01-16T10:30:00Z"), z.runAt());
        assertEquals("once at 2026-01-16 10:30", z.display());
        assertFalse(z.recurring());
        var offset = assertInstanceOf(Schedule.Once.class, parse("2026-01-16T10:30:00+02:00"));
        assertEquals(Instant.parse("2026-01-16T08:30:00Z"), offset.runAt());
        var naive = assertInstanceOf(Schedule.Once.class, ScheduleParser.parse("2026-07-01T12:00", BERLIN, NOW));
        assertEquals(Instant.parse("2026-07-01T10:00:00Z"), naive.runAt(), "summer time in Berlin is UTC+2");
        assertEquals("{\"kind\":\"once\",\"run_at\":\"2026-07-01T10:00:00+00:00\",\"display\":\"once at 2026-07-01 12:00\"}",
                naive.json().toString());
        var spaced = assertInstanceOf(Schedule.Once.class, parse("2026-01-16 10:30"));
        assertEquals(Instant.parse("2026-01-16T10:30:00Z"), spaced.runAt());
        var date = assertInstanceOf(Schedule.Once.class, parse("2026-02-01"));
        assertEquals(Instant.parse("2026-02-01T00:00:00Z"), date.runAt());
        var lower = assertInstanceOf(Schedule.Once.class, parse("2026-01-16t10:30:00z"));
        assertEquals(Instant.parse("2026-01-16T10:30:00Z"), lower.runAt());
    }

    @ParameterizedTest
    @CsvSource({"30m,1800,once in 30m", "2h,7200,once in 2h", "1d,86400,once in 1d", "5 minutes,300,once in 5m"})
    void bareDurationsAreOneShotsFromNow(String text, long seconds, String display) throws Exception {
        var s = assertInstanceOf(Schedule.Once.class, parse(text));
        assertEquals(NOW.plusSeconds(seconds), s.runAt());
        assertEquals(display, s.display());
        assertEquals(NOW.plusSeconds(seconds), s.nextAfter(NOW).orElseThrow());
        assertTrue(s.nextAfter(NOW.plusSeconds(seconds)).isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"tomorrow", "every", "every 0m", "every 5 weeks", "0m", "60 * * * *", "0 9 * * * *",
            "0 25 * * *", "0 9 * * MON", "2026-13-01T00:00", "*/0 * * * *", "12", "every -5m", "soon T"})
    void rejectsWithTheAcceptedForms(String text) {
        var e = assertThrows(InvalidScheduleException.class, () -> parse(text));
        assertEquals("Invalid schedule '" + text + "'. Use 'every 2h', '30m', a cron expression like '0 9 * * *', "
                + "or an ISO timestamp.", e.getMessage());
    }
}
