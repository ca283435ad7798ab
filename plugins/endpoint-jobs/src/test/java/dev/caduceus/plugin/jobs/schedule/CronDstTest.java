package dev.caduceus.plugin.jobs.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Zoned cron across Europe/Berlin's DST changes of 2026 (29 March 02:00 → 03:00; 25 October 03:00 → 02:00). */
class CronDstTest {
    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    static List<Instant> firings(String expr, String from, int count) {
        var cron = new Schedule.Cron(CronExpression.parse(expr).orElseThrow(), BERLIN);
        var out = new ArrayList<Instant>();
        var t = Instant.parse(from);
        for (int i = 0; i < count; i++) {
            t = cron.nextAfter(t).orElseThrow();
            out.add(t);
        }
        return out;
    }

    @Test
    void aWallTimeInTheSpringGapIsSkipped() {
        // 02:30 does not exist on 29 March: that day has no firing
        assertEquals(List.of(Instant.parse("2026-03-28T01:30:00Z"), Instant.parse("2026-03-30T00:30:00Z")),
                firings("30 2 * * *", "2026-03-28T00:00:00Z", 2));
    }

    @Test
    void hourlyJobsSkipTheMissingHourAndKeepTheirWallTime() {
        assertEquals(List.of(Instant.parse("2026-03-29T00:00:00Z"), // 01:00 CET
                        Instant.parse("2026-03-29T01:00:00Z")),      // 03:00 CEST (02:00 never happens)
                firings("0 * * * *", "2026-03-28T23:30:00Z", 2));
    }

    @Test
    void aWallTimeInTheAutumnOverlapFiresOnceAtItsFirstOccurrence() {
        // 02:30 happens twice on 25 October (CEST, then CET): one firing, at 00:30 UTC
        assertEquals(List.of(Instant.parse("2026-10-24T00:30:00Z"), Instant.parse("2026-10-25T00:30:00Z"),
                        Instant.parse("2026-10-26T01:30:00Z")),
                firings("30 2 * * *", "2026-10-23T12:00:00Z", 3));
    }

    @Test
    void everyFifteenMinutesThroughTheOverlapNeverRepeatsAWallTime() {
        var times = firings("*/15 * * * *", "2026-10-25T00:00:00Z", 8); // from 02:00 CEST
        assertEquals(Instant.parse("2026-10-25T00:15:00Z"), times.get(0));
        assertEquals(Instant.parse("2026-10-25T00:45:00Z"), times.get(2)); // 02:45 CEST
        assertEquals(Instant.parse("2026-10-25T02:00:00Z"), times.get(3)); // then 03:00 CET: the second 02:xx is skipped
        var walls = times.stream().map(t -> t.atZone(BERLIN).toLocalDateTime()).toList();
        assertEquals(walls.size(), walls.stream().distinct().count());
    }

    @Test
    void nextFromInsideTheSecondPassOfTheOverlapDoesNotGoBackInTime() {
        var from = Instant.parse("2026-10-25T01:10:00Z"); // 02:10 CET, the second 02:10
        var next = new Schedule.Cron(CronExpression.parse("30 2 * * *").orElseThrow(), BERLIN).nextAfter(from).orElseThrow();
        assertEquals(Instant.parse("2026-10-26T01:30:00Z"), next);
    }

    @Test
    void dayOfMonthAndDayOfWeekFollowTheOrRule() {
        // "the 13th, or any Friday": January 2026 has Fridays 2, 9, 16 and the 13th is a Tuesday
        var days = firings("0 0 13 * 5", "2026-01-01T00:00:00Z", 4).stream()
                .map(t -> t.atZone(BERLIN).toLocalDate().getDayOfMonth()).toList();
        assertEquals(List.of(2, 9, 13, 16), days);
    }

    @Test
    void anImpossibleDateHasNoNextTime() {
        var cron = new Schedule.Cron(CronExpression.parse("0 0 31 2 *").orElseThrow(), BERLIN);
        assertTrue(cron.nextAfter(Instant.parse("2026-01-01T00:00:00Z")).isEmpty());
    }
}
