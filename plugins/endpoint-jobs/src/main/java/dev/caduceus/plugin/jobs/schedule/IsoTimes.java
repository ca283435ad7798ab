package dev.caduceus.plugin.jobs.schedule;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Job timestamps on the wire: ISO-8601 in UTC with a {@code +00:00} offset, whole seconds. Stateless. */
public final class IsoTimes {
    private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssxxx");

    private IsoTimes() {}

    /** {@code instant} as {@code 2026-01-15T09:00:00+00:00}; null for null. */
    public static String format(Instant instant) {
        return instant == null ? null : ISO.format(instant.atOffset(ZoneOffset.UTC));
    }
}
