package dev.caduceus.plugin.jobs.schedule;

import static dev.caduceus.plugin.jobs.schedule.CatchUp.Decision.FIRE;
import static dev.caduceus.plugin.jobs.schedule.CatchUp.Decision.MISSED;
import static dev.caduceus.plugin.jobs.schedule.CatchUp.Decision.SKIP;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class CatchUpTest {
    static final Instant DUE = Instant.parse("2026-01-15T09:00:00Z");

    @Test
    void graceIsHalfThePeriodClampedTo120SecondsAndTwoHours() {
        assertEquals(Duration.ofSeconds(120), CatchUp.grace(Duration.ofMinutes(1)));
        assertEquals(Duration.ofMinutes(15), CatchUp.grace(Duration.ofMinutes(30)));
        assertEquals(Duration.ofHours(2), CatchUp.grace(Duration.ofDays(1)));
    }

    @Test
    void recurringJobsFireOnceWithinGraceElseSkip() {
        var hourly = new Schedule.Interval(60);
        assertEquals(FIRE, CatchUp.decide(hourly, DUE, DUE));
        assertEquals(FIRE, CatchUp.decide(hourly, DUE, DUE.plus(Duration.ofMinutes(29))));
        assertEquals(SKIP, CatchUp.decide(hourly, DUE, DUE.plus(Duration.ofMinutes(30))));
        var everyMinute = new Schedule.Interval(1);
        assertEquals(FIRE, CatchUp.decide(everyMinute, DUE, DUE.plusSeconds(119)));
        assertEquals(SKIP, CatchUp.decide(everyMinute, DUE, DUE.plusSeconds(120)));
        var daily = new Schedule.Cron(CronExpression.parse("0 9 * * *").orElseThrow(), ZoneOffset.UTC);
        assertEquals(FIRE, CatchUp.decide(daily, DUE, DUE.plus(Duration.ofMinutes(119))));
        assertEquals(SKIP, CatchUp.decide(daily, DUE, DUE.plus(Duration.ofHours(3))));
    }

    @Test
    void oneShotsAreMissedAfter120Seconds() {
        var once = new Schedule.Once(DUE, "once at 2026-01-15 09:00");
        assertEquals(FIRE, CatchUp.decide(once, DUE, DUE.plusSeconds(120)));
        assertEquals(MISSED, CatchUp.decide(once, DUE, DUE.plusSeconds(121)));
    }
}
