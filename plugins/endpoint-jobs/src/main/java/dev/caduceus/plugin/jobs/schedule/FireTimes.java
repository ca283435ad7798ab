package dev.caduceus.plugin.jobs.schedule;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * When a job fires: its first {@code next_run_at} (create, a new schedule), the time after a firing
 * (the scheduler), and the times to come ({@code POST /api/jobs/preview}), which are those two rules
 * applied as if every firing were on time. One place, so the preview cannot drift from what the
 * scheduler does. Stateless.
 */
public final class FireTimes {
    private FireTimes() {}

    /**
     * The first {@code next_run_at} of a new or rescheduled job: a one-shot's time (even if passed: the
     * tick decides, see {@link CatchUp}), else the next time after {@code now}; null when there is none.
     */
    public static Instant first(Schedule schedule, Instant now) {
        return schedule instanceof Schedule.Once o ? o.runAt() : schedule.nextAfter(now).orElse(null);
    }

    /**
     * The firing time after the one due at {@code due}, found at {@code now}: intervals stay on their
     * grid, a run-now ({@code manual}) restarts an interval from now; null for a one-shot.
     */
    public static Instant following(Schedule schedule, Instant due, Instant now, boolean manual) {
        return switch (schedule) {
            case Schedule.Interval i -> manual ? now.plus(i.period()) : i.nextOnGrid(due, now);
            case Schedule.Cron c -> c.nextAfter(now).orElse(null);
            case Schedule.Once o -> null;
        };
    }

    /**
     * Up to {@code count} times a job created at {@code now} with {@code schedule} fires, oldest first,
     * if each firing is on time: {@link #first}, then {@link #following} of each. A one-shot further in
     * the past than the misfire grace is missed, not run, so it has no time; repeat limits are not
     * applied.
     */
    public static List<Instant> upcoming(Schedule schedule, Instant now, int count) {
        var times = new ArrayList<Instant>(count);
        var next = first(schedule, now);
        if (next != null && !schedule.recurring() && CatchUp.decide(schedule, next, now) == CatchUp.Decision.MISSED)
            return times;
        while (next != null && times.size() < count) {
            times.add(next);
            next = following(schedule, next, next, false);
        }
        return times;
    }
}
