package dev.caduceus.platform.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.runtime.agent.AgentServices;
import dev.caduceus.platform.runtime.agent.RunService;
import dev.caduceus.platform.host.auth.KeyCheckers;
import dev.caduceus.platform.host.auth.NamedKeys;
import dev.caduceus.platform.host.boot.Boot;
import dev.caduceus.platform.host.boot.BootException;
import dev.caduceus.platform.host.boot.Version;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.platform.host.health.CoreChecks;
import dev.caduceus.platform.host.health.GatewayState;
import dev.caduceus.platform.host.health.HealthRoutes;
import dev.caduceus.platform.host.http.HttpServer;
import dev.caduceus.platform.host.http.HttpSettings;
import dev.caduceus.platform.host.http.PortInUseException;
import dev.caduceus.platform.host.http.RequestRecorder;
import dev.caduceus.platform.host.metrics.MetricsRoute;
import dev.caduceus.platform.host.http.RouteEntry;
import dev.caduceus.platform.host.http.Router;
import dev.caduceus.platform.runtime.journal.RunJournal;
import dev.caduceus.platform.runtime.cluster.Cluster;
import dev.caduceus.platform.host.plugin.ToolNotes;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.SqliteDatabase;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The serve application's wiring and lifecycle: {@link #start} runs the boot sequence of the
 * architecture doc (1.2, {@link Boot}) on the calling thread with the serve steps in it
 * ({@link Serving}: the runtime, the routes and Jetty); {@link #close} runs it backwards. Read top to
 * bottom to see what exists and who gets what.
 */
public final class Platform implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Platform.class);

    private final PlatformConfig config;
    private final Boot boot;
    private final HttpServer server;
    private final GatewayState state;
    private final RunService runs;
    private final RunJournal journal;
    private final Cluster cluster;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicBoolean closing = new AtomicBoolean();

    private Platform(Boot boot, HttpServer server, GatewayState state, RunService runs, RunJournal journal,
                     Cluster cluster) {
        this.journal = journal;
        this.cluster = cluster;
        this.config = boot.config();
        this.boot = boot;
        this.server = server;
        this.state = state;
        this.runs = runs;
    }

    /** {@code $CADUCEUS_HOME}, or {@code ~/.caduceus}. */
    public static Path stateDir(Map<String, String> env) {
        return Boot.stateDir(env);
    }

    /** Boots everything and starts serving; prints the start-up summary to {@code out}. */
    public static Platform start(Boot.Options options, PrintWriter out) throws BootException {
        SqliteDatabase.warmUpInBackground();
        HttpServer.warmUpInBackground();
        return Boot.run(options, new Boot.Mode.Serve(), new Serving(out));
    }

    /**
     * Boots the plugins against a scratch database (the server's state is untouched), prints what
     * each jar is and contributes, and stops them again.
     */
    public static void listPlugins(Boot.Options options, PrintWriter out) throws BootException {
        try (var boot = Boot.start(options, new Boot.Mode.Scratch())) {
            PluginListing.print(out, boot.registries());
        }
    }

    /** Prints the configuration reference of the host and the plugins that start ({@code caduceus config-reference}). */
    public static void printConfigReference(Boot.Options options, PrintWriter out) throws BootException {
        try (var boot = Boot.start(options, new Boot.Mode.Scratch())) {
            out.print(dev.caduceus.platform.host.config.ConfigReference.markdown(boot.settings().all()));
            out.flush();
        }
    }

    /**
     * The serve steps inside the boot: Jetty built while the database opens, then the
     * runtime, the routes, the checks and scheduled tasks, and Jetty started (7).
     */
    private static final class Serving implements Boot.Application<Platform> {
        private final PrintWriter out;
        private KeyCheckers keyCheck;
        private HttpServer.Unstarted http;

        Serving(PrintWriter out) {
            this.out = out;
        }

        @Override
        public void whileDatabaseOpens(Boot boot) {
            // 7a. Jetty is built (not started) while the database may still be opening: building it is
            // mostly class initialisation, which this thread would otherwise do after the plugins.
            keyCheck = new KeyCheckers(boot.apiKey().orElseThrow());
            http = HttpServer.prepare(httpSettings(boot.config(), keyCheck), boot.json());
            boot.lap("http set-up");
        }

        @Override
        public Platform started(Boot boot) throws BootException {
            var config = boot.config();
            var json = boot.json();
            var clock = boot.clock();
            var apiKey = boot.apiKey().orElseThrow();
            var database = boot.database();
            var scheduler = boot.scheduler();
            var readiness = boot.readiness();
            var booted = boot.booted();
            var registries = boot.registries();
            var late = boot.late();
            var state = new GatewayState();
            var namedKeys = new NamedKeys(database, new SecureRandom(), clock);
            keyCheck.bind(namedKeys);                                            //    named keys live there
            var cluster = joinCluster(database, clock, config.home());                          //    this node among the others
            boot.onFailure(cluster::close);
            var agents = AgentServices.create(config, registries, database, json, boot.options().env(), clock,
                    apiKey.clearValue().stream().toList(), boot.metrics().host(), cluster.nodeId(), cluster.feed());
            var journal = agents.journal();
            boot.onFailure(journal::close);
            agents.runs().bindOwnerPolicies(ownerPolicies(namedKeys));           //    and their run limits
            cluster.start(agents.runs(), journal, json);                         //    runs left live → interrupted
            readiness.register("cluster", cluster.check());
            var health = new HealthRoutes(json, readiness, state, agents.runs()::activeRuns, Version.CURRENT, clock,
                    keyCheck::requestCounts);
            var observe = config.observability();
            boot.metrics().registerJvm();                                        //    heap, GC, threads, RSS, fds
            boot.database().observe(boot.metrics().host());                      //    reader pool waits
            var routes = new ArrayList<RouteEntry>(coreRoutes(health, json));
            if (observe.metricsEnabled())                                        //    GET /metrics
                routes.add(new RouteEntry("GET", MetricsRoute.PATH, "metrics", "metrics", "core",
                        new MetricsRoute(boot.metrics())::scrape, json));
            registries.routes().forEach(r -> routes.add(new RouteEntry(r.method(), r.template(), r.name(),
                    r.familyId(), r.pluginId(), r.handler(), mapperOf(booted.started(), r.pluginId(), json),
                    r.publicRoute())));
            var publicPaths = new java.util.HashSet<>(Router.DEFAULT_PUBLIC_PATHS);
            if (observe.metricsEnabled() && observe.metricsPublic()) publicPaths.add(MetricsRoute.PATH);
            var router = Router.of(routes, publicPaths);
            var deployment = boot.deployment(routes, agents.runtimeId());
            late.bind(registries.tools(), deployment, registries.services());
            late.bindAgents(agents.runs(), agents.sessions(), agents.runs().toolCalls());
            late.bindModels(agents.models());
            CoreChecks.registerAll(readiness, config, database, scheduler::running, booted.started().size(),
                    booted.failed().size(), clock, () -> agents.runs().activeRuns() - agents.runs().activeJobRuns(),
                    agents.runs()::activeJobRuns, boot.outbound());
            var toolNotes = ToolNotes.of(registries);
            readiness.register("tools", CoreChecks.tools(toolNotes));
            boot.contexts().unreadKeys().forEach(k -> LOG.warn("{} is set but its plugin never read it (misspelled?)", k));
            scheduler.forOwner("platform", task -> task).scheduleWithFixedDelay("session-retention",
                    Duration.ofMinutes(1), Duration.ofHours(6),
                    () -> agents.sessions().prune(Duration.ofDays(config.retention().sessionsRetentionDays())));
            scheduler.forOwner("platform", task -> task).scheduleWithFixedDelay("run-retention",
                    Duration.ofMinutes(1), Duration.ofHours(1),
                    () -> agents.runs().prune(Duration.ofDays(config.retention().runsRetentionDays())));
            var recorder = new RequestRecorder(boot.metrics().host(), observe.requestLog());
            var server = startHttp(config, http, router, recorder);               // 7. Jetty
            boot.lap("http");
            LOG.info("Booted in {}", boot.timings());
            scheduler.open();
            state.set(GatewayState.State.RUNNING);
            var platform = new Platform(boot, server, state, agents.runs(), journal, cluster);
            StartupBanner.print(out, server.uri(), Version.CURRENT, registries.plugins(), deployment, config, apiKey,
                    toolNotes);
            return platform;
        }
    }

    /** The bound address. */
    public URI uri() {
        return server.uri();
    }

    /**
     * Tool calls outside a turn, as {@code PlatformContext.toolCalls()} gives them to endpoint-mcp: the
     * real selection and dispatcher. For the test host, which calls a plugin's tools through it.
     */
    public dev.caduceus.spi.agent.ToolCalls toolCalls() {
        return runs.toolCalls();
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitStopped() throws InterruptedException {
        stopped.await();
    }

    /**
     * Graceful shutdown: stop admitting runs and requests (503), let live runs and in-flight requests
     * finish up to {@code server.drain_timeout_seconds}, cancel the runs still live, stop Jetty, cancel scheduled tasks, stop plugins in
     * reverse order, close the database. Idempotent.
     */
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
            LOG.info("Shutting down: draining runs and in-flight requests");
            state.set(GatewayState.State.DRAINING);
            var timeout = Duration.ofSeconds(config.server().drainTimeoutSeconds());
            var deadline = System.nanoTime() + timeout.toNanos();
            runs.beginDrain();
            var requests = server.beginDrain();
            try {
                runs.drain(timeout);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                requests.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                LOG.warn("Drain timeout reached; stopping with requests in flight");
            }
            server.stop();
            journal.close();                                                     // commits the last events
            cluster.close();                                                     // this node's lease goes
            boot.close();                                                        // scheduler, plugins, database
            LOG.info("Caduceus stopped");
        } finally {
            stopped.countDown();
        }
    }

    // ---- serve steps ------------------------------------------------------------------------

    private static ObjectMapper mapperOf(List<dev.caduceus.platform.host.plugin.StartedPlugin> started, String pluginId,
                                         ObjectMapper fallback) {
        return started.stream().filter(p -> p.id().equals(pluginId)).findFirst()
                .map(p -> p.context().json()).orElse(fallback);
    }

    private static List<RouteEntry> coreRoutes(HealthRoutes health, ObjectMapper json) {
        return List.of(
                new RouteEntry("GET", "/health", "health", "core", "core", health::health, json),
                new RouteEntry("GET", "/v1/health", null, "core", "core", health::health, json),
                new RouteEntry("GET", "/health/detailed", "health_detailed", "core", "core", health::detailed, json));
    }

    /** This node among the nodes on the same database; one that cannot listen to the others does not start. */
    private static Cluster joinCluster(Database database, java.time.Clock clock, java.nio.file.Path home) throws BootException {
        try {
            return Cluster.of(database, clock, home);
        } catch (java.sql.SQLException e) {
            throw new BootException("Cannot listen for the other nodes on " + database.describe() + ": " + e.getMessage(), 2, e);
        }
    }

    /** The named keys' run limits (the admin key has none of its own). */
    private static dev.caduceus.platform.runtime.agent.OwnerPolicies ownerPolicies(NamedKeys keys) {
        return new dev.caduceus.platform.runtime.agent.OwnerPolicies() {
            @Override
            public int maxConcurrentRuns(String owner) {
                return owner.equals(dev.caduceus.spi.http.Caller.ADMIN) ? 0 : keys.policyOf(owner).maxConcurrentRuns();
            }

            @Override
            public List<String> toolsets(String owner) {
                return owner.equals(dev.caduceus.spi.http.Caller.ADMIN) ? List.of() : keys.policyOf(owner).toolsets();
            }

            @Override
            public boolean inForce(String owner) {
                return owner.equals(dev.caduceus.spi.http.Caller.ADMIN) || keys.inForce(owner);
            }
        };
    }

    private static HttpSettings httpSettings(PlatformConfig config, HttpSettings.KeyCheck keys) {
        var server = config.server();
        return new HttpSettings(server.host(), server.port(), server.maxBodyBytes(), server.corsOrigins(),
                keys, server.sseKeepaliveSeconds(), Duration.ofSeconds(server.drainTimeoutSeconds()),
                Duration.ofSeconds(server.idleTimeoutSeconds()), Duration.ofSeconds(server.headerTimeoutSeconds()),
                server.maxIdleConnectionsPerClient(), server.bodyMemoryPercent());
    }

    private static HttpServer startHttp(PlatformConfig config, HttpServer.Unstarted http, Router router,
                                        RequestRecorder recorder) throws BootException {
        try {
            return http.start(router, recorder);
        } catch (PortInUseException e) {
            var source = config.source("server.port").replaceFirst("^environment variable ", "");
            if (source.equals("default")) source = "API_SERVER_PORT";
            throw new BootException("Port " + e.port() + " is already in use (" + source + ")", 2, e);
        }
    }
}
