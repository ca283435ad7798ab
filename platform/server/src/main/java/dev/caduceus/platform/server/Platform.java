package dev.caduceus.platform.server;

import dev.caduceus.platform.host.boot.BootException;
import dev.caduceus.platform.host.boot.BootMode;
import dev.caduceus.platform.host.boot.BootOptions;
import dev.caduceus.platform.host.boot.BootSteps;
import dev.caduceus.platform.host.boot.Version;
import dev.caduceus.platform.host.config.ConfigReference;
import dev.caduceus.platform.runtime.assembly.Assembled;
import dev.caduceus.platform.runtime.assembly.Assembly;
import dev.caduceus.support.services.ToolCalls;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The serve application: {@link #start} has {@link Assembly} build the whole platform (configuration, store,
 * plugins, runtime, Jetty) and prints the start-up banner; {@link #close} stops it, once, and lets
 * {@link #awaitStopped} return. The commands that boot the plugins without serving ({@link #listPlugins},
 * {@link #printConfigReference}) use the same assembly.
 */
public final class Platform implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Platform.class);

    private final Assembled assembled;
    private final Assembled.Serving serving;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicBoolean closing = new AtomicBoolean();

    private Platform(Assembled assembled) {
        this.assembled = assembled;
        this.serving = assembled.serving().orElseThrow();
    }

    /** {@code $CADUCEUS_HOME}, or {@code ~/.caduceus}. */
    public static Path stateDir(Map<String, String> env) {
        return BootSteps.stateDir(env);
    }

    /** Boots everything and starts serving; prints the start-up summary to {@code out}. */
    public static Platform start(BootOptions options, PrintWriter out) throws BootException {
        var platform = new Platform(Assembly.assemble(options, new BootMode.Serve()));
        var s = platform.serving;
        StartupBanner.print(out, s.http().uri(), Version.CURRENT, platform.assembled.registries().plugins(),
                s.deployment(), platform.assembled.config(), s.apiKey(), s.toolNotes());
        return platform;
    }

    /**
     * Boots the plugins against a scratch database (the server's state is untouched), prints what
     * each jar is and contributes, and stops them again.
     */
    public static void listPlugins(BootOptions options, PrintWriter out) throws BootException {
        try (var plugins = Assembly.assemble(options, new BootMode.Scratch())) {
            PluginListing.print(out, plugins.registries());
        }
    }

    /** Prints the configuration reference of the host and the plugins that start ({@code caduceus config-reference}). */
    public static void printConfigReference(BootOptions options, PrintWriter out) throws BootException {
        try (var plugins = Assembly.assemble(options, new BootMode.Scratch())) {
            out.print(ConfigReference.markdown(plugins.settings().all()));
            out.flush();
        }
    }

    /** The bound address. */
    public URI uri() {
        return serving.http().uri();
    }

    /**
     * Tool calls outside a turn, the service endpoint-mcp finds as {@code services(ToolCalls.class)}: the
     * real selection and dispatcher. For the test host, which calls a plugin's tools through it.
     */
    public ToolCalls toolCalls() {
        return serving.agents().runs().toolCalls();
    }

    /**
     * The plain model calls plugins reach as {@code ctx.models()}: the selected provider (class-loader
     * bound), {@code model.stream} applied, errors redacted; not available in proxy mode or without a
     * provider. For the test host, which calls a provider plugin through it.
     */
    public dev.caduceus.spi.model.Models models() {
        return serving.agents().models();
    }

    /**
     * What this process serves, as plugins read it ({@code ctx.deployment()}): the plugins and what each
     * contributed, the routes, the tools and toolsets. For the test host.
     */
    public dev.caduceus.spi.Deployment deployment() {
        return serving.deployment();
    }

    /**
     * The services the started plugins offer each other whose interface has {@code type}'s name, in start
     * order, as a plugin finds them with {@code ctx.services(type)} (across class loaders where the copies of
     * {@code type} differ). For the test host.
     */
    public <T> java.util.List<T> services(Class<T> type) {
        return assembled.registries().services().all(type);
    }

    /**
     * Runs the scheduled task {@code owner/name} now and returns when the run has ended
     * ({@link dev.caduceus.platform.host.schedule.TaskScheduler#runNow}). For the test host: a periodic
     * tick without waiting its period.
     */
    public void runScheduledTask(String name) throws InterruptedException {
        serving.scheduler().runNow(name);
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitStopped() throws InterruptedException {
        stopped.await();
    }

    /** Graceful shutdown ({@link Assembled#close}). Idempotent: a second call waits for the first. */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        try {
            assembled.close();
            LOG.info("Caduceus stopped");
        } finally {
            stopped.countDown();
        }
    }
}
