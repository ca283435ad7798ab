package dev.caduceus.plugin.jobs.schedule;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * A validated standard 5-field cron expression (cron-utils' UNIX definition: minute, hour,
 * day-of-month, month, day-of-week; when both day fields are restricted either may match).
 *
 * <p>Times are matched on the wall clock of a zone, then mapped to instants by us rather than by
 * cron-utils, so the DST rule holds by construction: a wall time that falls in a
 * gap never happens and is skipped; a wall time that happens twice in an overlap fires once, at its
 * first occurrence. Immutable; thread-safe.
 */
public final class CronExpression {
    private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    /** Enough to step over any run of gap-only wall times; each step moves forward. */
    private static final int MAX_STEPS = 10_000;

    private final String text;
    private final ExecutionTime execution;

    private CronExpression(String text, ExecutionTime execution) {
        this.text = text;
        this.execution = execution;
    }

    /** Parses and validates {@code text} (fields separated by any whitespace); empty when it is not valid cron. */
    public static Optional<CronExpression> parse(String text) {
        var normalized = String.join(" ", text.trim().split("\\s+"));
        try {
            var cron = PARSER.parse(normalized).validate();
            return Optional.of(new CronExpression(normalized, ExecutionTime.forCron(cron)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The expression with single spaces between fields. */
    public String text() {
        return text;
    }

    /** The first fire time strictly after {@code after} on the wall clock of {@code zone}; empty if it never fires again. */
    public Optional<Instant> nextAfter(Instant after, ZoneId zone) {
        var rules = zone.getRules();
        var wall = LocalDateTime.ofInstant(after, zone);
        for (int step = 0; step < MAX_STEPS; step++) {
            var match = execution.nextExecution(wall.atZone(ZoneOffset.UTC));
            if (match.isEmpty()) return Optional.empty();
            wall = match.get().toLocalDateTime();
            Instant first = null;
            for (var offset : rules.getValidOffsets(wall)) { // none in a gap, two in an overlap
                var candidate = wall.toInstant(offset);
                if (first == null || candidate.isBefore(first)) first = candidate;
            }
            if (first != null && first.isAfter(after)) return Optional.of(first);
        }
        return Optional.empty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CronExpression other && other.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
