package dev.caduceus.plugin.files;

import dev.caduceus.plugin.files.http.FilesFamily;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.Scheduler;
import dev.caduceus.spi.config.PluginConfig.Setting;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.tool.Tool;
import java.util.List;

/**
 * Files in and out ({@code /v1/files}): contributes the {@code files} family, keeps the bytes under
 * {@code files.dir} and sweeps expired files and unused bytes every {@link FileSweep#EVERY}.
 *
 * <p>Threading: {@link #start}, {@link #endpoints} and {@link #stop} run on the boot thread; the sweep on the
 * host's scheduler; handlers on request threads.
 */
public final class FilesPlugin implements PlatformPlugin {
    private FilesSettings settings;
    private FileStore files;
    private BlobStore blobs;
    private SignedLinks links;
    private RunsWithFiles runsWithFiles;
    private Scheduler.Task sweep;

    @Override
    public List<Setting> settings() {
        return FilesSettings.ALL;
    }

    @Override
    public void start(PlatformContext ctx) {
        settings = FilesSettings.from(ctx);
        files = new FileStore(ctx.database());
        blobs = new BlobStore(settings.dir(), ctx.clock());
        links = SignedLinks.load(ctx.database(), ctx.clock());
        runsWithFiles = new RunsWithFiles();
        sweep = ctx.scheduler().scheduleWithFixedDelay("files-sweep", FileSweep.EVERY, FileSweep.EVERY,
                new FileSweep(files, blobs, ctx.clock()));
    }

    /** {@code deliver_file} (toolset {@code files}): what the agent delivers is kept as long as sessions are. */
    @Override
    public List<Tool> tools(PlatformContext ctx) {
        return List.of(new DeliverFileTool(runIntake(ctx), kept(ctx)));
    }

    /** What keeps a run's files: noted in {@link #runsWithFiles}. */
    private FileIntake runIntake(PlatformContext ctx) {
        return new FileIntake(files, blobs, settings, ctx.clock(), runsWithFiles);
    }

    private static java.time.Duration kept(PlatformContext ctx) {
        return java.time.Duration.ofDays(Math.max(1, ctx.section("sessions").integer("retention_days", 30)));
    }

    @Override
    public List<EndpointFamily> endpoints(PlatformContext ctx) {
        return List.of(new FilesFamily(files, blobs, links, settings, ctx.clock()));
    }

    /**
     * The uploads, for the endpoint families that take a file by id in a message ({@code FileLibrary}); and, unless
     * {@code files.outputs} is off, the watch that delivers what a run writes under {@code outputs/}
     * ({@code WorkspaceWatcher}).
     */
    @Override
    public List<Object> services(PlatformContext ctx) {
        var library = new StoredFiles(files, blobs, links, runsWithFiles, ctx.clock());
        if (!settings.outputs()) return List.of(library);
        return List.of(library, new OutputsWatcher(runIntake(ctx), files, kept(ctx),
                settings.outputsMaxFiles(), ctx.clock()));
    }

    @Override
    public void stop() {
        if (sweep != null) sweep.cancel();
    }
}
