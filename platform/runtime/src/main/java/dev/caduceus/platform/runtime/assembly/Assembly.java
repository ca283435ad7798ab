package dev.caduceus.platform.runtime.assembly;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.auth.ApiKey;
import dev.caduceus.platform.host.auth.KeyCheckers;
import dev.caduceus.platform.host.auth.NamedKeys;
import dev.caduceus.platform.host.boot.Applied;
import dev.caduceus.platform.host.boot.BootException;
import dev.caduceus.platform.host.boot.BootMode;
import dev.caduceus.platform.host.boot.BootOptions;
import dev.caduceus.platform.host.boot.BootSteps;
import dev.caduceus.platform.host.boot.BootTimer;
import dev.caduceus.platform.host.boot.Version;
import dev.caduceus.platform.host.config.DeclaredSettings;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.platform.host.health.CoreChecks;
import dev.caduceus.platform.host.health.GatewayState;
import dev.caduceus.platform.host.health.HealthRoutes;
import dev.caduceus.platform.host.health.Readiness;
import dev.caduceus.platform.host.http.HttpServer;
import dev.caduceus.platform.host.http.BodyPace;
import dev.caduceus.platform.host.webhooks.WebhookDeliveriesApi;
import dev.caduceus.platform.host.webhooks.WebhookDispatcher;
import dev.caduceus.platform.host.webhooks.WebhookSender;
import dev.caduceus.platform.host.webhooks.DeploymentWebhooks;
import dev.caduceus.platform.runtime.webhooks.RunWebhooks;
import dev.caduceus.platform.host.http.HttpSettings;
import dev.caduceus.platform.host.http.PortInUseException;
import dev.caduceus.platform.host.http.RequestRecorder;
import dev.caduceus.platform.host.http.ServedRoute;
import dev.caduceus.platform.host.http.Router;
import dev.caduceus.platform.host.json.Json;
import dev.caduceus.platform.host.metrics.MetricsRegistry;
import dev.caduceus.platform.host.metrics.MetricsRoute;
import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.plugin.BoundToolSource;
import dev.caduceus.platform.host.plugin.LateServices;
import dev.caduceus.platform.host.plugin.PluginBootException;
import dev.caduceus.platform.host.plugin.PluginContexts;
import dev.caduceus.platform.host.plugin.PluginHost;
import dev.caduceus.platform.host.plugin.PluginReport;
import dev.caduceus.platform.host.plugin.Registries;
import dev.caduceus.platform.host.plugin.StartedPlugin;
import dev.caduceus.platform.host.plugin.ToolNotes;
import dev.caduceus.platform.host.schedule.TaskScheduler;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.MigrationException;
import dev.caduceus.platform.host.store.SqliteDatabase;
import dev.caduceus.platform.host.plugin.DeploymentView;
import dev.caduceus.platform.runtime.agent.AgentServices;
import dev.caduceus.platform.runtime.agent.OwnerPolicies;
import dev.caduceus.platform.runtime.cluster.Cluster;
import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.config.ConfigException;
import dev.caduceus.spi.http.Caller;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one wiring point: builds the running platform from its parts, in the order of the architecture doc
 * (1.2) — configuration → state directory → database → plugins → runtime → HTTP — handing each part what it
 * needs in its constructor, and returns them as one immutable {@link Assembled}. Every process uses it:
 * {@code serve} and the test host ({@link BootMode.Serve}), {@code caduceus plugins} and {@code mcp}
 * ({@link BootMode.Scratch}), {@code caduceus batch} ({@link BootMode.Headless}), {@code db migrate}
 * ({@link BootMode.Migrate}); the mode says how far it goes. Read {@link #assemble} top to bottom to see what
 * exists and who gets what.
 *
 * <p>Failures are handled here, in one place: what was opened is closed in reverse ({@link Teardown}), and the
 * failure becomes a {@link BootException} with its exit status (2: configuration, key, workspace and port
 * problems; 1: a plugin or migration failure, or anything unexpected). Runs on the calling thread.
 */
public final class Assembly {
    private static final Logger LOG = LoggerFactory.getLogger(Assembly.class);

    private Assembly() {}

    /** Builds what {@code mode} needs of the platform; closing the result stops it all, in reverse. */
    public static Assembled assemble(BootOptions options, BootMode mode) throws BootException {
        if (mode instanceof BootMode.Serve) {
            SqliteDatabase.warmUpInBackground();                                 // class loading, off this thread
            HttpServer.warmUpInBackground();
        }
        var timer = new BootTimer();
        var config = BootSteps.loadConfig(options);                             // 1. configuration
        var teardown = new Teardown();
        try {
            return assemble(options, mode, config, timer, teardown);
        } catch (PluginBootException | MigrationException e) {
            teardown.close();
            throw new BootException(e.getMessage(), 1, e);
        } catch (ConfigException e) {                                            // a plugin's setting
            teardown.close();
            throw new BootException(BootSteps.withSource(e, config), 2, e);
        } catch (BootException e) {
            teardown.close();
            throw e;
        } catch (RuntimeException e) {
            teardown.close();
            throw new BootException("Caduceus failed to start: " + e, 1, e);
        }
    }

    private static Assembled assemble(BootOptions options, BootMode mode, PlatformConfig config, BootTimer timer,
                                      Teardown teardown) throws BootException {
        var clock = options.clock();
        var env = options.env();
        var scratch = BootSteps.prepareState(config, mode);                     //    the state directory, workspace
        if (scratch != null) teardown.add(() -> BootSteps.deleteQuietly(scratch));
        Map<String, Applied> migrations = Collections.synchronizedMap(new LinkedHashMap<>());
        var opening = BootSteps.openInBackground(mode, config, scratch, migrations); // 2. the database, meanwhile
        teardown.add(() -> BootSteps.closeQuietly(opening));
        var apiKey = mode instanceof BootMode.Serve ? Optional.of(BootSteps.resolveKey(config)) : Optional.<ApiKey>empty();
        var json = Json.newMapper();
        var outbound = teardown.add(new OutboundClient(BootSteps.proxyRules(config, env), "caduceus/" + Version.CURRENT,
                options.nameLookup()));
        timer.lap("config");
        var plugins = teardown.add(PluginHost.load(BootSteps.hostOptions(options, config))); // 3. the plugin jars
        plugins.findEntryPoints();
        timer.lap("plugin jars");
        var http = apiKey.map(k -> HttpServer.prepare(httpSettings(config), json)); // Jetty built (not started)
        if (http.isPresent()) timer.lap("http set-up");
        var database = BootSteps.awaitDatabase(opening);
        timer.lap("database");
        var scheduler = teardown.add(new TaskScheduler());                      //    closed before the plugins stop
        var readiness = new Readiness();
        var metrics = new MetricsRegistry();
        var late = new LateServices();                                           //    bound below, once
        var webhooks = new DeploymentWebhooks(config.webhooks(), json, clock, options.nameLookup(), // their outbox
                database.dialect() == dev.caduceus.spi.store.PluginDatabase.Dialect.POSTGRESQL
                        ? Database.schemaOf(dev.caduceus.platform.host.store.Migrations.PLATFORM) + "." : "");
        var contexts = new PluginContexts(config, Version.CURRENT, json, database, scheduler, readiness, late, clock,
                outbound, env, metrics, webhooks);
        var settings = new DeclaredSettings(config.tree(), config.dotenv().under(env));
        contexts.readConfigFrom(settings::tree);                                 //    with the settings' own variables
        var booted = plugins.start(BootSteps.beforeStart(database, settings, migrations), contexts::create); // 4-5.
        var registries = Registries.freeze(booted);                             // 6. the registries
        settings.unknownKeys().forEach(w -> LOG.warn("{}", w));                 //    what nothing declares
        timer.lap("plugins");
        var applied = List.copyOf(migrations.values());

        if (mode instanceof BootMode.Headless) {                                 // batch: no runtime of ours, no HTTP
            late.bind(LateServices.Bound.withoutRuntime(registries.tools(), deployment(registries, config,
                    List.of(), "local"), registries.services()));
            scheduler.open();
            return new Assembled(config, json, clock, database, booted, registries, settings, applied,
                    Optional.empty(), teardown);
        }
        if (!(mode instanceof BootMode.Serve))                                   // plugins, mcp, db migrate
            return new Assembled(config, json, clock, database, booted, registries, settings, applied,
                    Optional.empty(), teardown);

        var state = new GatewayState();                                          // 7. serve: keys, cluster, runtime
        var namedKeys = new NamedKeys(database, new SecureRandom(), clock);
        var keyCheck = new KeyCheckers(apiKey.orElseThrow(), namedKeys);        //    the admin key, then named ones
        var cluster = teardown.add(joinCluster(database, clock, config));        //    this node among the others
        var dispatcher = new WebhookDispatcher(database, webhooks, new WebhookSender(outbound, clock,
                "caduceus/" + Version.CURRENT), clock, cluster.nodeId(), metrics.host(), new SecureRandom());
        var agents = AgentServices.create(config, registries, database, json, env, clock,
                apiKey.orElseThrow().clearValue().stream().toList(), metrics.host(), cluster.nodeId(), cluster.feed(),
                ownerPolicies(namedKeys), webhooks, new RunWebhooks(webhooks, dispatcher, json)); // and their run limits
        teardown.add(agents.journal());                                          //    commits the last events
        teardown.add(agents.spend());                                            //    writes the last model usage
        teardown.add(dispatcher);                                                //    stops sending before that
        cluster.start(agents.runs(), agents.journal(), json);                   //    runs left live → interrupted
        readiness.register("cluster", cluster.check());
        var health = new HealthRoutes(json, readiness, state, agents.runs()::activeRuns, Version.CURRENT, clock,
                keyCheck::requestCounts);
        var observe = config.observability();
        metrics.registerJvm();                                                   //    heap, GC, threads, RSS, fds
        database.observe(metrics.host());                                        //    reader pool waits
        var routes = new ArrayList<>(coreRoutes(health, json));                  //    the routes
        var deliveries = new WebhookDeliveriesApi(database, dispatcher, json, clock);
        routes.add(new ServedRoute("GET", WebhookDeliveriesApi.BASE, "webhook_deliveries", "webhooks", "core",
                deliveries::list, json));
        routes.add(new ServedRoute("GET", WebhookDeliveriesApi.BASE + "/{delivery_id}", "webhook_delivery", "webhooks",
                "core", deliveries::get, json));
        routes.add(new ServedRoute("POST", WebhookDeliveriesApi.BASE + "/{delivery_id}/redeliver",
                "webhook_delivery_redeliver", "webhooks", "core", deliveries::redeliver, json));
        routes.add(new ServedRoute("GET", dev.caduceus.platform.runtime.spend.UsageApi.PATH, "usage", "usage", "core",
                new dev.caduceus.platform.runtime.spend.UsageApi(database, agents.spend(), json, clock)::usage, json));
        if (observe.metricsEnabled())
            routes.add(new ServedRoute("GET", MetricsRoute.PATH, "metrics", "metrics", "core",
                    new MetricsRoute(metrics)::scrape, json));
        registries.routes().forEach(r -> routes.add(new ServedRoute(r.method(), r.template(), r.name(), r.familyId(),
                r.pluginId(), r.handler(), mapperOf(booted.started(), r.pluginId(), json), r.publicRoute(),
                r.maxBodyBytes())));
        var publicPaths = new HashSet<>(Router.DEFAULT_PUBLIC_PATHS);
        if (observe.metricsEnabled() && observe.metricsPublic()) publicPaths.add(MetricsRoute.PATH);
        var router = Router.of(routes, publicPaths);
        var deployment = deployment(registries, config, routes, agents.runtimeId());
        late.bind(new LateServices.Bound(registries.tools(), deployment, registries.services(), agents.runs(),
                agents.sessions(), agents.runs().toolCalls(), agents.models()));   //    the plugins' after-boot services
        CoreChecks.registerAll(readiness, config, database, scheduler::running, booted.started().size(),
                booted.failed().size(), clock, () -> agents.runs().activeRuns() - agents.runs().activeBackgroundRuns(),
                agents.runs()::activeBackgroundRuns, outbound);
        var toolNotes = ToolNotes.of(registries);
        readiness.register("tools", CoreChecks.tools(toolNotes));
        agents.routes().ifPresent(table -> readiness.register("model_routes",      //    each deployment's state
                dev.caduceus.platform.runtime.routing.RouteHealth.check(table, clock)));
        contexts.unreadKeys().forEach(k -> LOG.warn("{} is set but its plugin never read it (misspelled?)", k));
        scheduleRetention(scheduler, config, agents);
        var recorder = new RequestRecorder(metrics.host(), observe.requestLog());
        var server = startHttp(config, http.orElseThrow(), keyCheck, router, recorder); // 8. Jetty
        timer.lap("http");
        LOG.info("Booted in {}", timer);
        if (Boolean.getBoolean("caduceus.aot.recording"))                        //    the launcher records the AOT cache:
            Thread.ofPlatform().daemon().name("caduceus-aot-tls").start(outbound::warmUpTls); // TLS's classes in it too
        scheduler.open();
        dispatcher.start();                                                      // webhooks, also those left pending
        state.set(GatewayState.State.RUNNING);
        var serving = new Assembled.Serving(server, state, agents, cluster, deployment, apiKey.orElseThrow(), toolNotes,
                scheduler);
        return new Assembled(config, json, clock, database, booted, registries, settings, applied,
                Optional.of(serving), teardown);
    }

    // ---- the parts' settings ----------------------------------------------------------------

    private static HttpSettings httpSettings(PlatformConfig config) {
        var server = config.server();
        return new HttpSettings(server.host(), server.port(), server.maxBodyBytes(), server.corsOrigins(),
                server.sseKeepaliveSeconds(), Duration.ofSeconds(server.drainTimeoutSeconds()),
                Duration.ofSeconds(server.idleTimeoutSeconds()), Duration.ofSeconds(server.headerTimeoutSeconds()),
                server.maxIdleConnectionsPerClient(), server.bodyMemoryPercent(),
                new BodyPace(server.bodyMinRate(), Duration.ofSeconds(server.bodyGraceSeconds())));
    }

    /** This node among the nodes on the same database; one that cannot listen to the others does not start. */
    private static Cluster joinCluster(Database database, java.time.Clock clock, PlatformConfig config)
            throws BootException {
        try {
            return Cluster.of(database, clock, config.home());
        } catch (java.sql.SQLException e) {
            throw new BootException("Cannot listen for the other nodes on " + database.describe() + ": "
                    + e.getMessage(), 2, e);
        }
    }

    /** The named keys' run limits (the admin key has none of its own). */
    private static OwnerPolicies ownerPolicies(NamedKeys keys) {
        return new OwnerPolicies() {
            @Override
            public int maxConcurrentRuns(String owner) {
                return owner.equals(Caller.ADMIN) ? 0 : keys.policyOf(owner).maxConcurrentRuns();
            }

            @Override
            public List<String> toolsets(String owner) {
                return owner.equals(Caller.ADMIN) ? List.of() : keys.policyOf(owner).toolsets();
            }

            @Override
            public boolean inForce(String owner) {
                return owner.equals(Caller.ADMIN) || keys.inForce(owner);
            }

            @Override
            public dev.caduceus.platform.runtime.spend.SpendLimits spendLimits(String owner) {
                if (owner.equals(Caller.ADMIN)) return dev.caduceus.platform.runtime.spend.SpendLimits.NONE;
                var policy = keys.policyOf(owner);
                return policy.budget().isEmpty() && policy.tokensPerMinute() == 0
                        ? dev.caduceus.platform.runtime.spend.SpendLimits.NONE
                        : new dev.caduceus.platform.runtime.spend.SpendLimits(policy.budget(), policy.tokensPerMinute());
            }
        };
    }

    private static List<ServedRoute> coreRoutes(HealthRoutes health, ObjectMapper json) {
        return List.of(
                new ServedRoute("GET", "/health", "health", "core", "core", health::health, json),
                new ServedRoute("GET", "/v1/health", null, "core", "core", health::health, json),
                new ServedRoute("GET", "/health/detailed", "health_detailed", "core", "core", health::detailed, json));
    }

    /** A plugin's routes write JSON with its own mapper (bound to its class loader). */
    private static ObjectMapper mapperOf(List<StartedPlugin> started, String pluginId, ObjectMapper fallback) {
        return started.stream().filter(p -> p.id().equals(pluginId)).findFirst()
                .map(p -> p.context().json()).orElse(fallback);
    }

    /** The deployment view plugins read: the registries' plugins and features, {@code routes}, {@code runtimeId}. */
    private static Deployment deployment(Registries registries, PlatformConfig config, List<ServedRoute> routes,
                                         String runtimeId) {
        return new DeploymentView(
                registries.plugins().stream().map(PluginReport::toStatus).toList(),
                routes.stream().map(r -> new Deployment.RouteInfo(r.method(), r.template(), r.name(), r.family(),
                        r.pluginId())).toList(),
                registries.features(), registries.familyFeatures(), runtimeId, !config.server().corsOrigins().isEmpty(),
                registries.tools(), registries.toolSources().stream()
                        .sorted(Comparator.comparing(c -> c.value().id()))
                        .<dev.caduceus.spi.tool.ToolSource>map(BoundToolSource::of).toList());
    }

    private static void scheduleRetention(TaskScheduler scheduler, PlatformConfig config, AgentServices agents) {
        var platform = scheduler.forOwner("platform", task -> task);
        platform.scheduleWithFixedDelay("session-retention", Duration.ofMinutes(1), Duration.ofHours(6),
                () -> agents.sessions().prune(Duration.ofDays(config.retention().sessionsRetentionDays())));
        platform.scheduleWithFixedDelay("run-retention", Duration.ofMinutes(1), Duration.ofHours(1),
                () -> agents.runs().prune(Duration.ofDays(config.retention().runsRetentionDays())));
        platform.scheduleWithFixedDelay("model-usage", Duration.ofSeconds(1), Duration.ofSeconds(1), agents.spend()::flush);
    }

    private static HttpServer startHttp(PlatformConfig config, HttpServer.Unstarted http, KeyCheckers keys,
                                        Router router, RequestRecorder recorder) throws BootException {
        try {
            return http.start(keys, router, recorder);
        } catch (PortInUseException e) {
            var source = config.source("server.port").replaceFirst("^environment variable ", "");
            if (source.equals("default")) source = "API_SERVER_PORT";
            throw new BootException("Port " + e.port() + " is already in use (" + source + ")", 2, e);
        }
    }
}
