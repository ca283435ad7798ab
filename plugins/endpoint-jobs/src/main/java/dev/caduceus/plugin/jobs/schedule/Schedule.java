package dev.caduceus.plugin.jobs.schedule;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;

/**
 * A parsed job schedule: a fixed interval, a zoned cron expression, or one instant.
 * Immutable; {@link ScheduleParser} builds them, {@link #json()} is the {@code schedule} object of the
 * job, and {@link #nextAfter} answers {@code next_run_at}.
 */
public sealed interface Schedule {

    /** The text shown as {@code display} and {@code schedule_display}. */
    String display();

    /** Whether the job fires more than once. */
    default boolean recurring() {
        return !(this instanceof Once);
    }

    /** The first fire time strictly after {@code instant}; empty when there is none. */
    Optional<Instant> nextAfter(Instant instant);

    /** The job's {@code schedule} object. */
    ObjectNode json();

    /** {@code every <N><unit>}: every {@code minutes} minutes, on a grid anchored at the first fire time. */
    record Interval(long minutes) implements Schedule {
        public Interval {
            if (minutes < 1) throw new IllegalArgumentException("minutes must be >= 1");
        }

        public Duration period() {
            return Duration.ofMinutes(minutes);
        }

        @Override public String display() { return "every " + minutes + "m"; }

        @Override public Optional<Instant> nextAfter(Instant instant) { return Optional.of(instant.plus(period())); }

        /** The first grid point {@code anchor + k * period} strictly after {@code instant}. */
        public Instant nextOnGrid(Instant anchor, Instant instant) {
            if (anchor.isAfter(instant)) return anchor;
            long periodMillis = period().toMillis();
            long steps = Duration.between(anchor, instant).toMillis() / periodMillis + 1;
            return anchor.plusMillis(steps * periodMillis);
        }

        @Override
        public ObjectNode json() {
            return JsonNodeFactory.instance.objectNode().put("kind", "interval").put("minutes", minutes)
                    .put("display", display());
        }
    }

    /** A 5-field cron expression evaluated on the wall clock of {@code zone}. */
    record Cron(CronExpression expression, ZoneId zone) implements Schedule {
        public Cron {
            requireNonNull(expression, "expression");
            requireNonNull(zone, "zone");
        }

        @Override public String display() { return expression.text() + " (" + zone.getId() + ")"; }

        @Override public Optional<Instant> nextAfter(Instant instant) { return expression.nextAfter(instant, zone); }

        @Override
        public ObjectNode json() {
            return JsonNodeFactory.instance.objectNode().put("kind", "cron").put("expr", expression.text())
                    .put("tz", zone.getId()).put("display", display());
        }
    }

    /**
     * A one-shot at {@code runAt}; {@code display} is {@code once at YYYY-MM-DD HH:MM} (the wall time
     * as written) or {@code once in 30m} (bare durations). Whole seconds, so the stored object round-trips.
     */
    record Once(Instant runAt, String display) implements Schedule {
        public Once {
            runAt = requireNonNull(runAt, "runAt").truncatedTo(java.time.temporal.ChronoUnit.SECONDS); // as shown

            requireNonNull(display, "display");
        }

        @Override
        public Optional<Instant> nextAfter(Instant instant) {
            return runAt.isAfter(instant) ? Optional.of(runAt) : Optional.empty();
        }

        @Override
        public ObjectNode json() {
            return JsonNodeFactory.instance.objectNode().put("kind", "once").put("run_at", IsoTimes.format(runAt))
                    .put("display", display);
        }
    }
}
