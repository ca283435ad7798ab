package dev.caduceus.platform.host.plugin;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.platform.host.config.PluginConfigImpl;
import dev.caduceus.platform.host.json.Json;
import dev.caduceus.platform.host.schedule.TaskScheduler;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.PluginDatabaseImpl;
import dev.caduceus.spi.HealthChecks;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PluginInfo;
import dev.caduceus.spi.outbound.OutboundHttp;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Makes each plugin's {@link PlatformContext} from the host's shared services: its config subtree,
 * a mapper bound to its loader, the database, a scheduler whose tasks run with its loader, and the
 * late services. Remembers each plugin's config so never-read keys can be warned about after boot.
 * Used on the boot thread.
 */
public final class PluginContexts {
    private final PlatformConfig config;
    private final String version;
    private final ObjectMapper json;
    private final Database database;
    private final TaskScheduler scheduler;
    private final HealthChecks health;
    private final LateServices late;
    private final Clock clock;
    private final OutboundHttp outbound;
    private final Map<String, String> env;
    private final dev.caduceus.platform.host.metrics.MetricsRegistry metrics;
    private final dev.caduceus.spi.webhook.Webhooks webhooks;
    private final Map<String, PluginConfigImpl> configs = new ConcurrentHashMap<>();
    private volatile java.util.function.Supplier<dev.caduceus.platform.host.config.ConfigTree> tree;

    public PluginContexts(PlatformConfig config, String version, ObjectMapper json, Database database,
                          TaskScheduler scheduler, HealthChecks health, LateServices late, Clock clock,
                          OutboundHttp outbound, Map<String, String> env,
                          dev.caduceus.platform.host.metrics.MetricsRegistry metrics,
                          dev.caduceus.spi.webhook.Webhooks webhooks) {
        this.webhooks = webhooks;
        this.metrics = metrics;
        this.outbound = outbound;
        this.env = Map.copyOf(env);
        this.config = config;
        this.version = version;
        this.json = json;
        this.database = database;
        this.scheduler = scheduler;
        this.health = health;
        this.late = late;
        this.clock = clock;
        this.tree = config::tree;
    }

    /**
     * Where contexts read the configuration from: the merged configuration with the variables the
     * plugins declared on their settings ({@code DeclaredSettings.tree}); {@code config.tree()} until set.
     */
    public void readConfigFrom(java.util.function.Supplier<dev.caduceus.platform.host.config.ConfigTree> tree) {
        this.tree = java.util.Objects.requireNonNull(tree, "tree");
    }

    /** The context of one plugin (called once per plugin, before its {@code start}). */
    public PlatformContext create(PluginDescriptorView plugin) {
        var info = new PluginInfo(plugin.id(), plugin.version(), plugin.jar(),
                config.home().resolve("plugin-data").resolve(plugin.id()));
        var merged = tree.get();
        var pluginConfig = new PluginConfigImpl(plugin.id(), merged);
        configs.put(plugin.id(), pluginConfig);
        var loader = plugin.classLoader();
        return new PluginContextImpl(info, pluginConfig, config.global(version), Json.forLoader(json, loader),
                new PluginDatabaseImpl(database, plugin.id()), scheduler.forOwner(plugin.id(), task -> () -> runWith(loader, task)),
                clock, health, merged, outbound, late, env, metrics.plugin(plugin.id()), webhooks);
    }

    /** {@code plugins.<id>.<key>} settings that the plugin never read, for a start-up warning. */
    public List<String> unreadKeys() {
        return configs.entrySet().stream()
                .flatMap(e -> e.getValue().unreadKeys().stream().map(k -> "plugins." + e.getKey() + "." + k))
                .sorted().toList();
    }

    private static void runWith(ClassLoader loader, Runnable task) {
        try {
            PluginCalls.run(loader, task::run);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
