package dev.caduceus.plugin.runs;

import dev.caduceus.spi.PlatformContext;
import java.time.Duration;

/**
 * The plugin's settings, read once at start. Immutable.
 *
 * @param idempotencyRetention {@code runs.idempotency_retention_hours} (24): advertised in
 *                             {@code /v1/capabilities}; the host enforces it
 * @param cursorGrace          how long an events cursor beyond the run's recorded {@code last_seq}
 *                             may wait for the record to catch up while the run is live (the
 *                             journal commits in batches, so a subscriber may have been sent an
 *                             event the record does not show yet); not a configuration key
 */
record RunsSettings(Duration idempotencyRetention, Duration cursorGrace) {
    static final Duration CURSOR_GRACE = Duration.ofSeconds(2);

    static RunsSettings from(PlatformContext ctx) {
        var hours = ctx.section("runs").integer("idempotency_retention_hours", 24);
        return new RunsSettings(Duration.ofHours(hours), CURSOR_GRACE);
    }
}
