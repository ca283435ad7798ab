package dev.caduceus.plugin.jobs.schedule;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The schedule grammar, case-insensitive, first match wins: {@code every <N><unit>},
 * a 5-field cron expression, an ISO timestamp (one-shot), a bare duration (one-shot from now).
 * Stateless.
 */
public final class ScheduleParser {
    private static final String UNIT = "(m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days)";
    private static final Pattern EVERY = Pattern.compile("every\\s+(\\d{1,9})\\s*" + UNIT);
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})\\s*" + UNIT);
    private static final Pattern CRON_FIELD = Pattern.compile("[0-9*,/-]+");
    private static final Pattern DATE_PREFIX = Pattern.compile("^\\d{4}-\\d{2}-\\d{2}.*");
    private static final DateTimeFormatter DISPLAY = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm");

    private ScheduleParser() {}

    /**
     * Parses {@code text} (already trimmed, non-empty). {@code zone} is the job's {@code tz} (or the
     * server's zone): it evaluates cron expressions and reads naive timestamps; {@code now} anchors
     * bare durations.
     */
    public static Schedule parse(String text, ZoneId zone, Instant now) throws InvalidScheduleException {
        var lower = text.toLowerCase(Locale.ROOT);
        var every = EVERY.matcher(lower);
        if (every.matches()) {
            long minutes = minutes(every);
            if (minutes < 1) throw new InvalidScheduleException(text);
            return new Schedule.Interval(minutes);
        }
        var fields = lower.split("\\s+");
        if (fields.length >= 5 && allCronFields(fields)) {
            var cron = CronExpression.parse(text).orElseThrow(() -> new InvalidScheduleException(text));
            return new Schedule.Cron(cron, zone);
        }
        var duration = DURATION.matcher(lower);
        if (duration.matches()) {
            long minutes = minutes(duration);
            if (minutes < 1) throw new InvalidScheduleException(text);
            var unit = duration.group(2).charAt(0);
            return new Schedule.Once(now.plusSeconds(minutes * 60), "once in " + duration.group(1) + unit);
        }
        // After durations, although rule 3 comes first: "5 minutes" contains a 't' but is no timestamp,
        // and no string that is a whole duration parses as one, so the order changes no other answer.
        if (lower.contains("t") || DATE_PREFIX.matcher(lower).matches()) return timestamp(text, zone);
        throw new InvalidScheduleException(text);
    }

    private static boolean allCronFields(String[] fields) {
        for (int i = 0; i < 5; i++) if (!CRON_FIELD.matcher(fields[i]).matches()) return false;
        return true;
    }

    private static long minutes(Matcher m) {
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2).charAt(0)) {
            case 'h' -> n * 60;
            case 'd' -> n * 24 * 60;
            default -> n;
        };
    }

    /** {@code Z} or an offset is honored; a naive date-time (or a bare date, at midnight) is read in {@code zone}. */
    private static Schedule.Once timestamp(String text, ZoneId zone) throws InvalidScheduleException {
        var iso = text.toUpperCase(Locale.ROOT).replaceFirst("^(\\d{4}-\\d{2}-\\d{2}) +", "$1T");
        try {
            var at = OffsetDateTime.parse(iso);
            return once(at.toInstant(), at.toLocalDateTime());
        } catch (DateTimeException ignored) {
            // not an offset date-time; try the naive forms
        }
        try {
            var at = ZonedDateTime.parse(iso);
            return once(at.toInstant(), at.toLocalDateTime());
        } catch (DateTimeException ignored) {
            // no zone either
        }
        try {
            var local = LocalDateTime.parse(iso);
            return once(local.atZone(zone).toInstant(), local);
        } catch (DateTimeException ignored) {
            // maybe a bare date
        }
        try {
            var local = LocalDate.parse(iso).atStartOfDay();
            return once(local.atZone(zone).toInstant(), local);
        } catch (DateTimeException e) {
            throw new InvalidScheduleException(text);
        }
    }

    private static Schedule.Once once(Instant at, LocalDateTime wall) {
        return new Schedule.Once(at, "once at " + DISPLAY.format(wall));
    }
}
