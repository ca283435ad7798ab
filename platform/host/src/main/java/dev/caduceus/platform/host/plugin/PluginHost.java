package dev.caduceus.platform.host.plugin;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.PlatformContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.pf4j.PluginState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Boot steps 3 to 5 and the plugins' shutdown. {@link #load} scans the plugin folders, applies the
 * {@link PluginSelection}, has PF4J load the enabled jars and checks each became RESOLVED;
 * {@link #start} starts them in dependency order and collects their contributions; {@link #stopAll}
 * stops them in reverse order and unloads PF4J.
 *
 * <pre>{@code
 * var host = PluginHost.load(new PluginHost.Options(roots, enabled, disabled, strict, Version.CURRENT));
 * var booted = host.start(plugin -> database.migrate(plugin), plugin -> new PluginContextImpl(plugin, ...));
 * var registries = Registries.freeze(booted);
 * ...
 * host.stopAll();
 * }</pre>
 *
 * <p>Strict mode (the default) turns any failure into a {@link PluginBootException} naming the plugin
 * id and jar, after stopping what already started; lenient mode logs it, drops that plugin and
 * reports it FAILED. Duplicate ids and selection errors fail in both modes.
 *
 * <p>Threading: confined to the boot thread; PF4J is not thread-safe (pf4j#30).
 */
public final class PluginHost implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PluginHost.class);

    /**
     * What to load.
     *
     * @param roots         absolute plugin folders: the distribution's {@code plugins/} and optional extra ones
     * @param enabled       config {@code plugins.enabled}; empty means all
     * @param disabled      config {@code plugins.disabled}
     * @param strict        false for {@code --lenient}
     * @param systemVersion the platform version, checked against each {@code Plugin-Requires}
     */
    public record Options(List<Path> roots, List<String> enabled, List<String> disabled, boolean strict,
                          String systemVersion) {
        public Options {
            roots = List.copyOf(roots);
            enabled = List.copyOf(enabled);
            disabled = List.copyOf(disabled);
            requireNonNull(systemVersion, "systemVersion");
            for (var root : roots)
                if (!root.isAbsolute()) throw new IllegalArgumentException("plugin root must be absolute: " + root);
        }
    }

    /** Runs on the boot thread before a plugin's {@code start} (the platform applies its migrations here). */
    @FunctionalInterface
    public interface BeforeStart {
        /**
         * The plugin's declared settings, before its migrations; a {@link dev.caduceus.spi.config.ConfigException}
         * (a wrong value) stops the boot as a configuration error, anything else fails the plugin.
         */
        default void declare(PluginDescriptorView plugin, java.util.List<dev.caduceus.spi.config.PluginConfig.Setting> settings)
                throws Exception {}

        void prepare(PluginDescriptorView plugin) throws Exception;
    }

    private final CaduceusPluginManager manager;
    private final boolean strict;
    private final Map<String, PluginReport> reports;
    private final List<Loaded> loaded;
    private final List<StartedPlugin> started = new ArrayList<>();
    private final Map<String, PluginStarter.EntryPoint> entryPoints = new HashMap<>();
    private boolean startCalled;
    private boolean stopped;

    /** A plugin PF4J resolved, with its required dependencies, in start order. */
    record Loaded(PluginDescriptorView view, List<String> requires) {}

    private PluginHost(CaduceusPluginManager manager, boolean strict, Map<String, PluginReport> reports,
                       List<Loaded> loaded) {
        this.manager = manager;
        this.strict = strict;
        this.reports = reports;
        this.loaded = loaded;
    }

    /**
     * A plugin jar found under the roots, and whether the selection ({@code plugins.enabled},
     * {@code plugins.disabled}) would start it.
     *
     * @param reason why it is off; null when enabled
     */
    public record Found(String id, String version, Path jar, boolean enabled, String reason) {}

    /**
     * The plugin jars under {@code options}' roots, by id, read from their manifests only: no class is
     * loaded and nothing starts. For commands that need to know which plugins there are, not run them
     * ({@code caduceus db check} lists the migrations in their jars). Jars that are not plugins are left
     * out; a duplicate id throws {@link PluginBootException}, as at boot.
     */
    public static List<Found> survey(Options options) {
        var scan = PluginScanner.scan(options.roots());
        var rootsById = new HashMap<String, Path>();
        scan.plugins().forEach(s -> rootsById.put(s.id(), s.root()));
        var selection = PluginSelection.decide(rootsById, options.roots(), options.enabled(), options.disabled());
        return scan.plugins().stream()
                .map(s -> {
                    var decision = selection.decision(s.id());
                    return new Found(s.id(), s.version(), s.jar().toAbsolutePath(), decision.enabled(),
                            decision.enabled() ? null : decision.reason());
                })
                .sorted(java.util.Comparator.comparing(Found::id))
                .toList();
    }

    /** Boot step 3. Throws {@link PluginBootException} on failure (any failure in strict mode). */
    public static PluginHost load(Options options) {
        var reports = new TreeMap<String, PluginReport>();
        var scan = PluginScanner.scan(options.roots());
        for (var rejected : scan.rejected()) {
            var message = "plugin jar " + rejected.jar().getFileName() + ": " + rejected.reason();
            if (options.strict()) throw new PluginBootException(message + " (" + rejected.jar() + ")");
            log.warn("{}; skipping it (lenient)", message);
            var name = rejected.jar().getFileName().toString();
            reports.put(name, PluginReport.failed(name, "unknown", rejected.jar(), rejected.reason()));
        }
        var rootsById = new HashMap<String, Path>();
        scan.plugins().forEach(s -> rootsById.put(s.id(), s.root()));
        var selection = PluginSelection.decide(rootsById, options.roots(), options.enabled(), options.disabled());
        var enabled = new ArrayList<PluginScanner.Scanned>();
        for (var s : scan.plugins()) {
            var decision = selection.decision(s.id());
            if (decision.enabled()) enabled.add(s);
            else {
                log.debug("Plugin '{}' ({}) is off: {}", s.id(), s.jar().getFileName(), decision.reason());
                reports.put(s.id(), PluginReport.disabled(s.id(), s.version(), s.jar(), decision.reason()));
            }
        }
        // The banner lists the plugins and why any is off; the log keeps one line, the names at debug.
        var off = selection.decisions().stream().filter(d -> !d.enabled()).map(PluginSelection.Decision::id).sorted().toList();
        log.info("Plugins from {}: {} enabled, {} off", options.roots(), enabled.size(), off.size());
        log.debug("Plugins enabled {}, off {} (plugins.enabled={}, plugins.disabled={})",
                enabled.stream().map(PluginScanner.Scanned::id).sorted().toList(), off, options.enabled(), options.disabled());
        var plan = StartOrder.plan(enabled);
        var byId = new HashMap<String, PluginScanner.Scanned>();
        enabled.forEach(s -> byId.put(s.id(), s));
        plan.failed().forEach((id, reason) -> fail(options.strict(), reports, byId.get(id), reason, null));

        var loadable = plan.order().stream().map(PluginScanner.Scanned::id).toList();
        var manager = new CaduceusPluginManager(options.roots(), options.systemVersion(), loadable::contains);
        try {
            manager.loadPlugins();
            var loaded = new ArrayList<Loaded>();
            for (var s : plan.order()) {
                var problem = checkResolved(manager, s, options.systemVersion());
                if (problem != null) {
                    fail(options.strict(), reports, s, problem, null);
                    continue;
                }
                var requires = s.descriptor().getDependencies().stream()
                        .filter(d -> !d.isOptional()).map(d -> d.getPluginId()).toList();
                var view = new PluginDescriptorView(s.id(), s.version(), s.jar().toAbsolutePath(),
                        manager.getPluginClassLoader(s.id()));
                loaded.add(new Loaded(view, requires));
            }
            return new PluginHost(manager, options.strict(), reports, loaded);
        } catch (PluginBootException e) {
            unload(manager);
            throw e;
        } catch (RuntimeException e) {
            // e.g. PF4J's DependenciesWrongVersionException: missing deps and cycles were caught above.
            unload(manager);
            throw new PluginBootException("PF4J failed to load the plugins: " + e.getMessage(), e);
        }
    }

    /** Why PF4J did not resolve {@code s}, or null when it did. */
    private static String checkResolved(CaduceusPluginManager manager, PluginScanner.Scanned s, String systemVersion) {
        var wrapper = manager.getPlugin(s.id());
        if (wrapper == null) return "PF4J did not load it (see the PF4J log above)";
        if (!wrapper.getPluginPath().toAbsolutePath().equals(s.jar().toAbsolutePath()))
            return "PF4J loaded it from " + wrapper.getPluginPath() + " instead";
        var state = wrapper.getPluginState();
        if (state == PluginState.RESOLVED) return null;
        var requires = s.descriptor().getRequires();
        if (state == PluginState.DISABLED && requires != null && !requires.isBlank() && !"*".equals(requires.trim()))
            return "it requires platform version " + requires + " (Plugin-Requires), this is " + systemVersion;
        return "PF4J left it " + state + " instead of RESOLVED (see the PF4J log above)";
    }

    /** Strict: throws. Lenient: logs and records the plugin as FAILED. */
    private static void fail(boolean strict, Map<String, PluginReport> reports, PluginScanner.Scanned s,
                             String reason, Throwable cause) {
        var message = "plugin '" + s.id() + "' (" + s.jar().getFileName() + ") " + reason;
        if (strict) throw new PluginBootException(message, cause);
        log.warn("{}; continuing without it (lenient)", message, cause);
        reports.put(s.id(), PluginReport.failed(s.id(), s.version(), s.jar(), reason));
    }

    /**
     * The first part of boot step 4, ahead of {@link #start}: finds and makes each plugin's single
     * {@code PlatformPlugin} ({@code ServiceLoader} on its loader, which loads and verifies the plugin's
     * first classes from its jar), starting nothing. The boot calls this while the database opens, as
     * it needs neither the database nor another plugin; {@link #start} does it for whatever was not
     * found yet. A failure is only reported when that plugin's turn to start comes, so both modes see
     * the same failures in the same order either way. Callable before {@link #start} only.
     */
    public void findEntryPoints() {
        if (startCalled) throw new IllegalStateException("start() was already called");
        for (var plugin : loaded) entryPoint(plugin.view());
    }

    private PluginStarter.EntryPoint entryPoint(PluginDescriptorView view) {
        return entryPoints.computeIfAbsent(view.id(), id -> PluginStarter.EntryPoint.find(view));
    }

    /**
     * Boot steps 4 and 5: for each plugin in dependency order, finds its single {@code PlatformPlugin},
     * runs {@code beforeStart}, builds its context with {@code contexts}, calls {@code start} and then
     * each contribution method once. Callable once.
     */
    public BootedPlugins start(BeforeStart beforeStart, Function<PluginDescriptorView, PlatformContext> contexts) {
        requireNonNull(beforeStart, "beforeStart");
        requireNonNull(contexts, "contexts");
        if (startCalled) throw new IllegalStateException("start() was already called");
        startCalled = true;
        var starter = new PluginStarter(beforeStart, contexts);
        var contributions = new ContributionCollector();
        for (var plugin : loaded) {
            var view = plugin.view();
            var missing = plugin.requires().stream().filter(dep -> !isStarted(dep)).findFirst();
            try {
                if (missing.isPresent())
                    throw new PluginStarter.StageException("depends on plugin '" + missing.get()
                            + "', which did not start", null);
                var result = starter.start(view, entryPoint(view));
                started.add(result.started());
                contributions.add(result);
                reports.put(view.id(), new PluginReport(view.id(), view.version(), view.jar(),
                        Deployment.State.STARTED, result.started().kinds(), null));
            } catch (PluginStarter.StageException e) {
                var message = "plugin " + view.label() + " " + e.getMessage();
                if (strict) {
                    stopAll();
                    throw new PluginBootException(message, e.getCause());
                }
                log.warn("{}; continuing without it (lenient)", message, e.getCause());
                reports.put(view.id(), PluginReport.failed(view.id(), view.version(), view.jar(), e.getMessage()));
            } catch (dev.caduceus.spi.config.ConfigException e) {
                stopAll(); // a wrong value of a plugin's setting stops the boot in any mode, as a host key's does
                throw e;
            }
        }
        return new BootedPlugins(started, List.copyOf(reports.values()), contributions.build());
    }

    private boolean isStarted(String id) {
        return started.stream().anyMatch(p -> p.id().equals(id));
    }

    /** Every jar found and how it ended up so far, ordered by id. */
    public List<PluginReport> plugins() {
        return List.copyOf(reports.values());
    }

    /**
     * Stops the started plugins in reverse start order (errors are logged, the rest still stop), then
     * has PF4J stop and unload everything, closing the class loaders. Idempotent.
     */
    public void stopAll() {
        if (stopped) return;
        stopped = true;
        for (int i = started.size() - 1; i >= 0; i--) PluginStarter.stopQuietly(started.get(i));
        if (!started.isEmpty()) log.info("Stopped {} plugins", started.size());
        unload(manager);
    }

    @Override
    public void close() {
        stopAll();
    }

    private static void unload(CaduceusPluginManager manager) {
        try {
            manager.stopPlugins();
            manager.unloadPlugins();
            for (var wrapper : manager.getPlugins()) manager.unloadPlugin(wrapper.getPluginId());
        } catch (RuntimeException e) {
            log.warn("PF4J failed to unload the plugins", e);
        }
    }
}
