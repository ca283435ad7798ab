package dev.caduceus.platform.host.health;

import com.fasterxml.jackson.databind.node.NullNode;
import dev.caduceus.platform.host.config.ConfigLoader;
import dev.caduceus.platform.host.config.ConfigTree;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.platform.host.config.Secret;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.spi.HealthChecks.Result;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Protocol;
import dev.caduceus.spi.outbound.OutboundHttp.Tls;
import java.time.Clock;
import java.time.Duration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The core's readiness checks. Each reports statuses and counts only: never paths,
 * messages, configuration values or credentials.
 */
public final class CoreChecks {
    private static final long ONE_GIB = 1L << 30;

    private CoreChecks() {}

    /** Registers the six core checks, in the contract's order; the model probes go through {@code http}. */
    public static void registerAll(Readiness readiness, PlatformConfig config, Database database,
                                   BooleanSupplier schedulerRunning, int startedPlugins, int failedPlugins, Clock clock,
                                   IntSupplier activeApiRuns, IntSupplier activeJobRuns, OutboundHttp http) {
        var model = config.model();
        Optional<ModelProbe> probe = model.configured() && model.healthProbe()
                ? Optional.of(new ModelProbe(http, ModelProbe.modelsUri(model.baseUrl().orElse(PlatformConfig.OPENAI_BASE_URL)),
                        model.apiKey().map(Secret::reveal).orElse(null), modelTls(config.tree()),
                        modelProtocol(config.tree()), clock))
                : Optional.empty();
        readiness.register("database", database(() -> database.ping(Duration.ofSeconds(2))));
        readiness.register("config", config(config.configFile(), ConfigLoader::stillParses));
        var proxy = config.gateway().proxyUrl().filter(u -> !config.agent().runtime().equals("local"));
        if (proxy.isPresent())                                              // proxy mode: the remote's /health
            readiness.register("model", proxyModel(new ModelProbe(http, java.net.URI.create(
                    proxy.get().replaceAll("/+$", "") + "/health"), null, clock)));
        else readiness.register("model", model(model.configured(), probe));
        readiness.register("disk", disk(config.home()));
        readiness.register("plugins", plugins(startedPlugins, failedPlugins));
        // Background processes of the terminal tool are not reported to the host yet: 0.
        readiness.register("background_queues", backgroundQueues(activeApiRuns, activeJobRuns, () -> 0, schedulerRunning));
    }

    /** The upstream's TLS settings, {@code model.tls.*} (validated paths; {@code ~/} is the user's home). */
    static Tls modelTls(ConfigTree tree) {
        return new Tls(path(tree, "model.tls.ca_file"), path(tree, "model.tls.client_cert"),
                path(tree, "model.tls.client_key"));
    }

    /** The upstream's HTTP version, {@code model.protocol} ({@code auto}, {@code http1.1} or {@code h2c}). */
    static Protocol modelProtocol(ConfigTree tree) {
        return switch (tree.node("model.protocol").map(n -> n.asText().strip().toLowerCase(Locale.ROOT)).orElse("auto")) {
            case "http1.1" -> Protocol.HTTP_1_1;
            case "h2c" -> Protocol.H2C;
            default -> Protocol.AUTO;
        };
    }

    private static Optional<Path> path(ConfigTree tree, String key) {
        var text = tree.node(key).map(n -> n.asText().strip()).orElse("");
        if (text.isEmpty()) return Optional.empty();
        var home = Path.of(System.getProperty("user.home"));
        if (text.equals("~")) return Optional.of(home);
        if (text.startsWith("~/")) return Optional.of(home.resolve(text.substring(2)).normalize());
        return Optional.of(Path.of(text).normalize());
    }

    /** {@code database}: a {@code SELECT 1} answered within 2 s. */
    public static Supplier<Result> database(BooleanSupplier ping) {
        return () -> ping.getAsBoolean() ? Result.healthy() : Result.degraded(Map.of());
    }

    /**
     * {@code config}: degraded when the config file changed on disk since start and no longer
     * parses (the running config stays in force).
     */
    public static Supplier<Result> config(Optional<Path> file, Predicate<Path> stillParses) {
        var loadedAt = file.map(CoreChecks::modified);
        return () -> {
            if (file.isEmpty()) return Result.healthy();
            var now = modified(file.get());
            if (now.equals(loadedAt.get())) return Result.healthy();
            return stillParses.test(file.get()) ? Result.healthy() : Result.degraded(Map.of("changed_on_disk", true));
        };
    }

    /** {@code model}: configured, and reachable unless the probe is off ({@code reachable: null}). */
    public static Supplier<Result> model(boolean configured, Optional<ModelProbe> probe) {
        return () -> {
            var details = new LinkedHashMap<String, Object>();
            details.put("configured", configured);
            if (!configured) {
                details.put("reachable", false);
                return Result.degraded(details);
            }
            if (probe.isEmpty()) {
                details.put("reachable", NullNode.getInstance());
                return Result.healthy(details);
            }
            var reachable = probe.get().reachable();
            details.put("reachable", reachable);
            return reachable ? Result.healthy(details) : Result.degraded(details);
        };
    }

    /** {@code model} in proxy mode: the remote's {@code /health} answered, with {@code "mode":"proxy"}. */
    public static Supplier<Result> proxyModel(ModelProbe probe) {
        return () -> {
            var details = new LinkedHashMap<String, Object>();
            details.put("configured", true);
            var reachable = probe.reachable();
            details.put("reachable", reachable);
            details.put("mode", "proxy");
            return reachable ? Result.healthy(details) : Result.degraded(details);
        };
    }

    /** {@code disk}: degraded below 1 GiB free or at 95 % used, under {@code home}. */
    public static Supplier<Result> disk(Path home) {
        return () -> {
            try {
                var store = Files.getFileStore(home);
                long total = store.getTotalSpace();
                long free = store.getUsableSpace();
                double used = total == 0 ? 0 : Math.round(1000.0 * (total - free) / total) / 10.0;
                var details = new LinkedHashMap<String, Object>();
                details.put("used_percent", used);
                details.put("free_bytes", free);
                return free < ONE_GIB || used >= 95.0 ? Result.degraded(details) : Result.healthy(details);
            } catch (IOException e) {
                return Result.degraded(Map.of("error", e.getClass().getName()));
            }
        };
    }

    /** {@code plugins}: degraded when any plugin failed to start ({@code --lenient}). */
    public static Supplier<Result> plugins(int started, int failed) {
        var details = new LinkedHashMap<String, Object>();
        details.put("started", started);
        details.put("failed", failed);
        return () -> failed == 0 ? Result.healthy(details) : Result.degraded(details);
    }

    /**
     * {@code tools}: every tool's operator note ({@code Tool.note()}), by tool name; degraded while
     * any is a warning (the terminal running unsandboxed because bubblewrap cannot run, say). The
     * notes name a reason, never a path or a credential.
     */
    public static Supplier<Result> tools(dev.caduceus.platform.host.plugin.ToolNotes notes) {
        var details = new LinkedHashMap<String, Object>();
        notes.byTool().forEach((name, note) -> details.put(name, (note.warning() ? "warning: " : "") + note.text()));
        return () -> notes.warnings().isEmpty() ? Result.healthy(details) : Result.degraded(details);
    }

    /** {@code background_queues}: degraded when the scheduler thread is not running. */
    public static Supplier<Result> backgroundQueues(IntSupplier activeApiRuns, IntSupplier activeJobRuns,
                                                    IntSupplier backgroundProcesses, BooleanSupplier schedulerRunning) {
        return () -> {
            var details = new LinkedHashMap<String, Object>();
            details.put("active_api_runs", activeApiRuns.getAsInt());
            details.put("active_job_runs", activeJobRuns.getAsInt());
            details.put("background_processes", backgroundProcesses.getAsInt());
            var running = schedulerRunning.getAsBoolean();
            details.put("scheduler", running ? "running" : "stopped");
            return running ? Result.healthy(details) : Result.degraded(details);
        };
    }

    private static FileTime modified(Path file) {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }
}
