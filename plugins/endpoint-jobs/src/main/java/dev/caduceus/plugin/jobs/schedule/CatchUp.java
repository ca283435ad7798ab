package dev.caduceus.plugin.jobs.schedule;

import java.time.Duration;
import java.time.Instant;

/**
 * The misfire rule, for a job found due at {@code now} with {@code next_run_at} =
 * {@code due} (normally a tick or two late; after downtime possibly much later):
 * <ul>
 *   <li>a recurring job overdue by less than half its period (clamped to 120 s – 2 h) fires once;
 *       otherwise it skips to its next future time without firing;</li>
 *   <li>a one-shot overdue by more than 120 s does not run: it is completed as missed.</li>
 * </ul>
 * Stateless.
 */
public final class CatchUp {
    public static final Duration MIN_GRACE = Duration.ofSeconds(120);
    public static final Duration MAX_GRACE = Duration.ofHours(2);

    private CatchUp() {}

    /** What to do with a due firing. */
    public enum Decision { FIRE, SKIP, MISSED }

    public static Decision decide(Schedule schedule, Instant due, Instant now) {
        var late = Duration.between(due, now);
        if (!schedule.recurring()) return late.compareTo(MIN_GRACE) > 0 ? Decision.MISSED : Decision.FIRE;
        return late.compareTo(grace(period(schedule, due))) < 0 ? Decision.FIRE : Decision.SKIP;
    }

    /** Half the period, at least {@link #MIN_GRACE}, at most {@link #MAX_GRACE}. */
    static Duration grace(Duration period) {
        var half = period.dividedBy(2);
        if (half.compareTo(MIN_GRACE) < 0) return MIN_GRACE;
        return half.compareTo(MAX_GRACE) > 0 ? MAX_GRACE : half;
    }

    /** An interval's period, or a cron job's gap between {@code due} and the firing after it (its period there). */
    static Duration period(Schedule schedule, Instant due) {
        return switch (schedule) {
            case Schedule.Interval i -> i.period();
            case Schedule.Cron c -> c.nextAfter(due).map(next -> Duration.between(due, next)).orElse(MAX_GRACE.multipliedBy(2));
            case Schedule.Once o -> Duration.ZERO;
        };
    }
}
