package dev.caduceus.plugin.jobs;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.config.ConfigException;
import dev.caduceus.spi.config.PluginConfig.Setting;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;

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
    public static final Duration DEFAULT_TICK = Duration.ofSeconds(1);

    private static final String OWN = "plugins.endpoint-jobs.";

    /** {@code plugins.endpoint-jobs.default_tz}; no default (the server's zone). */
    public static final Setting DEFAULT_TZ = Setting.string(OWN + "default_tz", null,
            "the time zone of cron schedules and of timestamps sent without one (unset: the server's zone)");

    /** {@code plugins.endpoint-jobs.tick}. */
    public static final Setting TICK = Setting.duration(OWN + "tick", DEFAULT_TICK.toSeconds() + "s",
            "how often due jobs are looked for and fired");

    /** Both, as {@link JobsPlugin#settings} declares them. */
    public static final List<Setting> ALL = List.of(DEFAULT_TZ, TICK);

    public static JobsSettings from(PlatformContext ctx) {
        var zoneId = ctx.config().string(own(DEFAULT_TZ));
        ZoneId zone;
        try {
            zone = zoneId.map(ZoneId::of).orElse(ZoneId.systemDefault());
        } catch (DateTimeException e) {
            throw new ConfigException(DEFAULT_TZ.key(), "not a time zone: " + zoneId.get());
        }
        return new JobsSettings(zone, ctx.config().duration(own(TICK), DEFAULT_TICK), START_TIMEOUT);
    }

    private static String own(Setting setting) {
        return setting.key().substring(OWN.length());
    }
}
