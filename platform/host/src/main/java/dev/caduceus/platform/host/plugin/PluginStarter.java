package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts one plugin: entry point, before-start hook, context, {@code start}, contributions. Every call
 * into plugin code goes through {@link PluginCalls}. A failure after {@code start} stops the plugin
 * again before it is reported.
 */
final class PluginStarter {
    private static final Logger log = LoggerFactory.getLogger(PluginStarter.class);
    private static final String SERVICES_FILE = "META-INF/services/" + PlatformPlugin.class.getName();

    private final PluginHost.BeforeStart beforeStart;
    private final Function<PluginDescriptorView, PlatformContext> contexts;

    PluginStarter(PluginHost.BeforeStart beforeStart, Function<PluginDescriptorView, PlatformContext> contexts) {
        this.beforeStart = beforeStart;
        this.contexts = contexts;
    }

    /** A failed stage; the message reads after "plugin 'id' (file.jar) ". */
    static final class StageException extends Exception {
        private static final long serialVersionUID = 1L;

        StageException(String message, Throwable cause) {
            super(cause == null ? message : message + ": " + describe(cause), cause);
        }

        private static String describe(Throwable t) {
            return t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
        }
    }

    record Result(StartedPlugin started, Contributions contributions) {}

    /**
     * A plugin's {@link PlatformPlugin}, made ahead of its turn to start, or the failure to find or make
     * it, kept so that it is reported at that turn, as if it had happened then.
     */
    record EntryPoint(PlatformPlugin plugin, StageException failure) {
        static EntryPoint find(PluginDescriptorView view) {
            try {
                return new EntryPoint(entryPoint(view), null);
            } catch (StageException e) {
                return new EntryPoint(null, e);
            }
        }

        PlatformPlugin get() throws StageException {
            if (failure != null) throw failure;
            return plugin;
        }
    }

    Result start(PluginDescriptorView view, EntryPoint entry) throws StageException {
        var loader = view.classLoader();
        var plugin = entry.get();
        var settings = stage("failed to declare its settings", () -> PluginCalls.with(loader, plugin::settings));
        try {
            beforeStart.declare(view, settings == null ? List.of() : settings);
        } catch (dev.caduceus.spi.config.ConfigException e) {
            throw e; // a wrong value in the configuration: the operator's to fix, reported as such
        } catch (Exception e) {
            throw new StageException("declares its settings wrongly", e);
        }
        stage("failed before start (migrations)", () -> { PluginCalls.run(loader, () -> beforeStart.prepare(view)); return null; });
        var ctx = stage("has no context", () -> contexts.apply(view));
        try {
            PluginCalls.run(loader, () -> plugin.start(ctx));
        } catch (dev.caduceus.spi.config.ConfigException e) {
            stopQuietly(view, plugin);
            throw e; // a plugin that checks its own section at start (tool-mcp's mcp_servers): the operator's to fix
        } catch (Exception | LinkageError | java.util.ServiceConfigurationError e) {
            throw new StageException("failed to start", e);
        }
        try {
            var contributions = new Contributions(
                    collect(view, "endpoints", () -> plugin.endpoints(ctx)),
                    collect(view, "tools", () -> plugin.tools(ctx)),
                    collect(view, "toolsets", () -> plugin.toolsets(ctx)),
                    collect(view, "modelProviders", () -> plugin.modelProviders(ctx)),
                    collect(view, "agentRuntimes", () -> plugin.agentRuntimes(ctx)),
                    collect(view, "services", () -> plugin.services(ctx)),
                    collect(view, "toolSources", () -> plugin.toolSources(ctx)));
            var kinds = new ArrayList<String>();
            if (!contributions.endpoints().isEmpty()) kinds.add("endpoints");
            if (!contributions.tools().isEmpty()) kinds.add("tools");
            if (!contributions.toolsets().isEmpty()) kinds.add("toolsets");
            if (!contributions.modelProviders().isEmpty()) kinds.add("model_providers");
            if (!contributions.agentRuntimes().isEmpty()) kinds.add("agent_runtimes");
            if (!contributions.services().isEmpty()) kinds.add("services");
            if (!contributions.toolSources().isEmpty()) kinds.add("tool_sources");
            var started = new StartedPlugin(view, plugin, ctx, kinds);
            log.debug("Started plugin {} {}{}", view.label(), view.version(), kinds.isEmpty() ? "" : " " + kinds);
            return new Result(started, contributions);
        } catch (StageException | dev.caduceus.spi.config.ConfigException e) {
            stopQuietly(view, plugin);
            throw e;
        }
    }

    /** The jar's single {@link PlatformPlugin}; providers visible through the parent do not count (5.5). */
    private static PlatformPlugin entryPoint(PluginDescriptorView view) throws StageException {
        var loader = view.classLoader();
        var own = stage("has an unusable " + SERVICES_FILE, () -> PluginCalls.with(loader, () ->
                ServiceLoader.load(PlatformPlugin.class, loader).stream()
                        .filter(p -> p.type().getClassLoader() == loader)
                        .toList()));
        if (own.size() != 1)
            throw new StageException((own.isEmpty() ? "has no PlatformPlugin" : "has " + own.size()
                    + " PlatformPlugin classes " + own.stream().map(p -> p.type().getName()).toList())
                    + " in " + SERVICES_FILE + "; exactly one is required", null);
        return stage("cannot create its PlatformPlugin " + own.get(0).type().getName(),
                () -> PluginCalls.with(loader, () -> own.get(0).get()));
    }

    private static <T> List<Contribution<T>> collect(PluginDescriptorView view, String method,
                                                     Callable<List<T>> call) throws StageException {
        var loader = view.classLoader();
        List<T> values;
        try {
            values = PluginCalls.with(loader, call);
        } catch (dev.caduceus.spi.config.ConfigException e) {
            throw e; // a plugin that reads its section where it builds a contribution: the operator's to fix
        } catch (Exception | LinkageError | java.util.ServiceConfigurationError e) {
            throw new StageException("failed in " + method + "()", e);
        }
        if (values == null) throw new StageException("returned null from " + method + "()", null);
        var tagged = new ArrayList<Contribution<T>>();
        for (var value : values) {
            if (value == null) throw new StageException("returned a null element from " + method + "()", null);
            tagged.add(new Contribution<>(value, view.id(), loader));
        }
        return tagged;
    }

    private static <T> T stage(String failure, Callable<T> call) throws StageException {
        try {
            return call.call();
        } catch (Exception | LinkageError | java.util.ServiceConfigurationError e) {
            throw new StageException(failure, e);
        }
    }

    static void stopQuietly(StartedPlugin plugin) {
        stopQuietly(plugin.descriptor(), plugin.plugin());
    }

    private static void stopQuietly(PluginDescriptorView view, PlatformPlugin plugin) {
        try {
            PluginCalls.run(view.classLoader(), plugin::stop);
            log.debug("Stopped plugin {}", view.label());
        } catch (Exception | LinkageError e) {
            log.warn("Plugin {} failed to stop; continuing", view.label(), e);
        }
    }
}
