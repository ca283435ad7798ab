package dev.caduceus.plugin.jobs.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fire times a preview shows are the scheduler's own rules applied firing by firing. */
class FireTimesTest {
    static final Instant NOW = Instant.parse("2026-03-27T12:00:00.700Z");
    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    static Schedule parse(String text, ZoneId zone) throws InvalidScheduleException {
        return ScheduleParser.parse(text, zone, NOW);
    }

    @Test
    void anIntervalStaysOnItsGridFromNow() throws Exception {
        var times = FireTimes.upcoming(parse("every 90m", ZoneOffset.UTC), NOW, 3);
        assertEquals(List.of(NOW.plus(Duration.ofMinutes(90)), NOW.plus(Duration.ofMinutes(180)),
                NOW.plus(Duration.ofMinutes(270))), times);
    }

    @Test
    void cronSkipsTheWallTimeThatADstGapRemoves() throws Exception {
        // 2026-03-29 02:30 does not happen in Berlin (02:00 CET → 03:00 CEST).
        var times = FireTimes.upcoming(parse("30 2 * * *", BERLIN), NOW, 3);
        assertEquals(List.of(Instant.parse("2026-03-28T01:30:00Z"), Instant.parse("2026-03-30T00:30:00Z"),
                Instant.parse("2026-03-31T00:30:00Z")), times);
    }

    @Test
    void theFirstTimeIsTheCreatedJobsNextRunAndEachNextIsTheSchedulersFollowing() throws Exception {
        for (var text : List.of("every 2h", "0 9 * * 1-5", "*/20 * * * *", "45m", "2026-04-01T10:00:00Z")) {
            var schedule = parse(text, BERLIN);
            var times = FireTimes.upcoming(schedule, NOW, 20);
            assertEquals(FireTimes.first(schedule, NOW), times.getFirst(), text);
            for (int i = 1; i < times.size(); i++) {
                var due = times.get(i - 1);
                assertEquals(FireTimes.following(schedule, due, due, false), times.get(i), text + " #" + i);
            }
            assertEquals(schedule.recurring() ? 20 : 1, times.size(), text);
        }
    }

    @Test
    void aOneShotHasOneTimeAndNoneOnceItWouldBeMissed() throws Exception {
        var soon = parse("30m", ZoneOffset.UTC);
        assertEquals(List.of(Instant.parse("2026-03-27T12:30:00Z")), FireTimes.upcoming(soon, NOW, 5));
        var justPassed = parse("2026-03-27T11:59:00Z", ZoneOffset.UTC); // within the 120 s grace: fires at once
        assertEquals(List.of(Instant.parse("2026-03-27T11:59:00Z")), FireTimes.upcoming(justPassed, NOW, 5));
        var longPassed = parse("2026-03-27T11:00:00Z", ZoneOffset.UTC); // the tick marks it missed
        assertEquals(List.of(), FireTimes.upcoming(longPassed, NOW, 5));
    }

    @Test
    void countBoundsTheList() throws Exception {
        assertEquals(1, FireTimes.upcoming(parse("every 1m", ZoneOffset.UTC), NOW, 1).size());
        assertEquals(20, FireTimes.upcoming(parse("every 1m", ZoneOffset.UTC), NOW, 20).size());
    }
}
