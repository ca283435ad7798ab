package dev.caduceus.plugin.jobs;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.config.ConfigException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;

/**
 * The plugin's settings ({@code plugins.endpoint-jobs.*}), read once at start. Immutable.
 *
 * @param defaultZone  {@code default_tz}: the zone of cron jobs and naive timestamps without a {@code tz}
 *                     (default: the JVM's zone, i.e. the server's)
 * @param tick         {@code tick}: how often due jobs are checked (1 s)
 * @param startTimeout how long a claimed firing may take to start its run before another loop
 *                     (or the next process) gives it up as failed; not a configuration key
 */
public record JobsSettings(ZoneId defaultZone, Duration tick, Duration startTimeout) {
    public static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    public static JobsSettings from(PlatformContext ctx) {
        var zoneId = ctx.config().string("default_tz");
        ZoneId zone;
        try {
            zone = zoneId.map(ZoneId::of).orElse(ZoneId.systemDefault());
        } catch (DateTimeException e) {
            throw new ConfigException("plugins.endpoint-jobs.default_tz", "not a time zone: " + zoneId.get());
        }
        return new JobsSettings(zone, ctx.config().duration("tick", Duration.ofSeconds(1)), START_TIMEOUT);
    }
}
