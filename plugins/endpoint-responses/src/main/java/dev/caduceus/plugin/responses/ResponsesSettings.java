package dev.caduceus.plugin.responses;

import dev.caduceus.spi.PlatformContext;
import java.time.Duration;

/**
 * The plugin's settings, read once at start. Immutable.
 *
 * @param maxStored          {@code responses.max_stored} (10,000): LRU bound of the store
 * @param eventRetention     {@code responses.event_retention_hours} (24): journals older than this are
 *                           not replayed (events are synthesized instead)
 * @param idempotencyTtl     {@code idempotency.ttl_seconds} (300)
 * @param idempotencyEntries {@code idempotency.max_entries} (1000)
 * @param backgroundQueue    {@code responses.background_queue} (1000): background responses that may wait for
 *                           admission at once; one more is a 429
 */
record ResponsesSettings(int maxStored, Duration eventRetention, Duration idempotencyTtl, int idempotencyEntries,
                         int backgroundQueue) {

    static ResponsesSettings from(PlatformContext ctx) {
        var section = ctx.section("responses");
        return new ResponsesSettings(section.integer("max_stored", 10_000),
                Duration.ofHours(section.integer("event_retention_hours", 24)),
                Duration.ofSeconds(ctx.section("idempotency").integer("ttl_seconds", 300)),
                ctx.section("idempotency").integer("max_entries", 1000),
                section.integer("background_queue", 1000));
    }
}
