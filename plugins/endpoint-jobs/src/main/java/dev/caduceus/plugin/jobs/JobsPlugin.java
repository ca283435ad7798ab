package dev.caduceus.plugin.jobs;

import dev.caduceus.plugin.jobs.http.JobsFamily;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.Scheduler;
import dev.caduceus.spi.config.PluginConfig.Setting;
import dev.caduceus.spi.http.EndpointFamily;
import java.util.List;

/**
 * The jobs API and its scheduler: contributes the {@code jobs} family under {@code /api/jobs} and
 * ticks every second, firing due jobs as durable runs through the host's run service.
 * The first tick, after boot, also settles jobs whose run was live when the server last stopped
 * (the host marks those runs interrupted).
 *
 * <p>Threading: {@link #start}, {@link #endpoints} and {@link #stop} run on the boot thread; the tick
 * on the host's scheduler; handlers on request threads.
 */
public final class JobsPlugin implements PlatformPlugin {
    private JobStore store;
    private JobsSettings settings;
    private JobScheduler scheduler;
    private Scheduler.Task tick;

    /** What {@link JobsSettings} reads. */
    @Override
    public List<Setting> settings() {
        return JobsSettings.ALL;
    }

    @Override
    public void start(PlatformContext ctx) {
        settings = JobsSettings.from(ctx);
        store = new JobStore(ctx.database(), ctx.json(), ctx.webhooks());
        scheduler = new JobScheduler(store, ctx::runs, ctx.clock(), settings, ctx.global().modelName(),
                JobMetrics.on(ctx.metrics()));
        tick = ctx.scheduler().scheduleWithFixedDelay("jobs-tick", settings.tick(), settings.tick(),
                () -> scheduler.tick(settings.tick()));
    }

    @Override
    public List<EndpointFamily> endpoints(PlatformContext ctx) {
        return List.of(new JobsFamily(store, new JobCommands(store, ctx::runs, ctx.clock()), ctx::runs, ctx.clock(),
                settings.defaultZone(), ctx.webhooks()));
    }

    @Override
    public void stop() {
        if (tick != null) tick.cancel();
        if (scheduler != null) scheduler.close();
    }
}
