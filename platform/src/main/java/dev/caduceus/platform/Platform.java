package dev.caduceus.platform;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.agent.AgentServices;
import dev.caduceus.platform.agent.RunService;
import dev.caduceus.platform.journal.RunJournal;
import dev.caduceus.platform.auth.ApiKey;
import dev.caduceus.platform.auth.KeyCheckers;
import dev.caduceus.platform.auth.NamedKeys;
import dev.caduceus.platform.auth.ApiKeyException;
import dev.caduceus.platform.auth.ApiKeys;
import dev.caduceus.platform.config.ConfigLoader;
import dev.caduceus.platform.config.PlatformConfig;
import dev.caduceus.platform.config.Secret;
import dev.caduceus.platform.health.CoreChecks;
import dev.caduceus.platform.health.GatewayState;
import dev.caduceus.platform.health.HealthRoutes;
import dev.caduceus.platform.health.Readiness;
import dev.caduceus.platform.http.HttpServer;
import dev.caduceus.platform.http.HttpSettings;
import dev.caduceus.platform.http.PortInUseException;
import dev.caduceus.platform.http.RouteEntry;
import dev.caduceus.platform.http.Router;
import dev.caduceus.platform.json.Json;
import dev.caduceus.platform.plugin.DeploymentView;
import dev.caduceus.platform.plugin.LateServices;
import dev.caduceus.platform.plugin.PluginBootException;
import dev.caduceus.platform.plugin.PluginContexts;
import dev.caduceus.platform.plugin.PluginHost;
import dev.caduceus.platform.plugin.PluginReport;
import dev.caduceus.platform.plugin.Registries;
import dev.caduceus.platform.plugin.ToolNotes;
import dev.caduceus.platform.schedule.TaskScheduler;
import dev.caduceus.platform.store.Database;
import dev.caduceus.platform.store.MigrationException;
import dev.caduceus.platform.store.Migrations;
import dev.caduceus.platform.store.PlatformMigrations;
import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.config.ConfigException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wiring and lifecycle: the one place that constructs the host's shared services and hands them
 * out. {@link #start} runs the boot sequence (config, database, load, start in dependency order, collect, freeze, Jetty) on the calling thread;
 * {@link #close} runs it backwards. Read top to bottom to see what exists and who gets what.
 */
public final class Platform implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Platform.class);
    private static final String DATABASE = "caduceus.db";

    /**
     * What to start.
     *
     * @param configFile  {@code --config FILE}, if given
     * @param flags       command-line settings ({@code --port} → {@code server.port}), highest precedence
     * @param lenient     skip plugins that fail instead of stopping the boot
     * @param env         the environment: the process's plus the secrets the launcher handed over (Main)
     * @param appHome     the installation directory (its {@code plugins/} is scanned), or null
     */
    public record Options(Optional<Path> configFile, List<ConfigLoader.Flag> flags, boolean lenient,
                          Map<String, String> env, Path appHome) {
        public Options {
            flags = List.copyOf(flags);
            env = Map.copyOf(env);
        }
    }

    private final PlatformConfig config;
    private final Database database;
    private final TaskScheduler scheduler;
    private final PluginHost plugins;
    private final HttpServer server;
    private final GatewayState state;
    private final RunService runs;
    private final RunJournal journal;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicBoolean closing = new AtomicBoolean();

    private Platform(PlatformConfig config, Database database, TaskScheduler scheduler, PluginHost plugins,
                     HttpServer server, GatewayState state, RunService runs, RunJournal journal) {
        this.journal = journal;
        this.config = config;
        this.database = database;
        this.scheduler = scheduler;
        this.plugins = plugins;
        this.server = server;
        this.state = state;
        this.runs = runs;
    }

    /** {@code $CADUCEUS_HOME}, or {@code ~/.caduceus}. */
    public static Path stateDir(Map<String, String> env) {
        return new ConfigLoader(env, userHome(env)).home();
    }

    /** {@code ~}: {@code $HOME} as the shell sees it, else the JVM's {@code user.home}. */
    private static Path userHome(Map<String, String> env) {
        var home = env.get("HOME");
        return Path.of(home == null || home.isBlank() ? System.getProperty("user.home") : home);
    }

    /** Boots everything and starts serving; prints the start-up summary to {@code out}. */
    public static Platform start(Options options, PrintWriter out) throws BootException {
        Database.warmUpInBackground();
        HttpServer.warmUpInBackground();
        var clock = Clock.systemUTC();
        var boot = new BootTimer();
        var config = loadConfig(options);                                        // 1. config
        if (!config.serverEnabled())
            throw new BootException("not serving: the API server is disabled (server.enabled is false, from "
                    + config.serverEnabledSource() + "); set API_SERVER_ENABLED=true or remove that setting to serve",
                    0, null);
        var home = prepareHome(config.home());
        // 2. The database opens on its own thread while this one goes on with what does not need it (key,
        // JSON, reading the plugin jars): opening is ~0.5 s of a cold start, mostly one-time initialisation
        // (sqlite-jdbc, Jdbi, and the JFR event metadata that Jdbi's first statement event loads).
        var opening = new FutureTask<>(() -> openDatabase(home));
        Thread.ofPlatform().name("caduceus-db-open").start(opening);
        var scheduler = new TaskScheduler();
        Database database = null;
        PluginHost host = null;
        RunJournal journal = null;
        try {
            prepareWorkspace(config);
            var apiKey = resolveKey(config, home);
            var json = Json.newMapper();
            var state = new GatewayState();
            var readiness = new Readiness();
            boot.lap("config");
            host = PluginHost.load(hostOptions(options, config));                // 3. load
            host.findEntryPoints();                                              // 4a. while the database opens
            boot.lap("plugin jars");
            // 7a. Jetty is built (not started) while the database may still be opening: building it is
            // mostly class initialisation, which this thread would otherwise do after the plugins.
            var keyCheck = new KeyCheckers(apiKey);
            var http = HttpServer.prepare(httpSettings(config, keyCheck), json);
            boot.lap("http set-up");
            database = awaitDatabase(opening);
            boot.lap("database");                                                //    (the wait for it)
            var namedKeys = new NamedKeys(database, new SecureRandom(), clock);
            keyCheck.bind(namedKeys);                                            //    named keys live there
            var late = new LateServices();
            var contexts = new PluginContexts(config, Version.CURRENT, json, database, scheduler, readiness, late,
                    clock);
            var booted = host.start(migrate(database), contexts::create);       // 4-5. start, collect
            var registries = Registries.freeze(booted);                          // 6. freeze
            boot.lap("plugins");
            var agents = AgentServices.create(config, registries, database, json, options.env(), clock,
                    apiKey.clearValue().stream().toList());
            journal = agents.journal();
            agents.runs().bindOwnerPolicies(ownerPolicies(namedKeys));           //    and their run limits
            agents.runs().recover();                                             //    runs left live → interrupted
            var health = new HealthRoutes(json, readiness, state, agents.runs()::activeRuns, Version.CURRENT, clock,
                    keyCheck::requestCounts);
            var routes = new ArrayList<RouteEntry>(coreRoutes(health, json));
            registries.routes().forEach(r -> routes.add(new RouteEntry(r.method(), r.template(), r.name(),
                    r.familyId(), r.pluginId(), r.handler(), mapperOf(booted.started(), r.pluginId(), json))));
            var router = Router.of(routes);
            var deployment = deployment(registries, routes, config, agents.runtimeId());
            late.bind(registries.tools(), deployment, registries.responseHistory());
            late.bindAgents(agents.runs(), agents.sessions());
            late.bindModels(agents.models());
            CoreChecks.registerAll(readiness, config, database, scheduler::running, booted.started().size(),
                    booted.failed().size(), clock, () -> agents.runs().activeRuns() - agents.runs().activeJobRuns(),
                    agents.runs()::activeJobRuns);
            var toolNotes = ToolNotes.of(registries);
            readiness.register("tools", CoreChecks.tools(toolNotes));
            contexts.unreadKeys().forEach(k -> LOG.warn("{} is set but its plugin never read it (misspelled?)", k));
            scheduler.forOwner("platform", task -> task).scheduleWithFixedDelay("session-retention",
                    Duration.ofMinutes(1), Duration.ofHours(6),
                    () -> agents.sessions().prune(Duration.ofDays(config.retention().sessionsRetentionDays())));
            scheduler.forOwner("platform", task -> task).scheduleWithFixedDelay("run-retention",
                    Duration.ofMinutes(1), Duration.ofHours(1),
                    () -> agents.runs().prune(Duration.ofDays(config.retention().runsRetentionDays())));
            var server = startHttp(config, http, router);                         // 7. Jetty
            boot.lap("http");
            LOG.info("Booted in {}", boot);
            scheduler.open();
            state.set(GatewayState.State.RUNNING);
            var platform = new Platform(config, database, scheduler, host, server, state, agents.runs(), journal);
            StartupBanner.print(out, server.uri(), Version.CURRENT, registries.plugins(), deployment, config, apiKey,
                    toolNotes);
            return platform;
        } catch (PluginBootException | MigrationException e) {
            closeQuietly(journal);
            cleanUp(host, scheduler, database != null ? database : awaitQuietly(opening));
            throw new BootException(e.getMessage(), 1, e);
        } catch (BootException e) {
            closeQuietly(journal);
            cleanUp(host, scheduler, database != null ? database : awaitQuietly(opening));
            throw e;
        } catch (RuntimeException e) {
            closeQuietly(journal);
            cleanUp(host, scheduler, database != null ? database : awaitQuietly(opening));
            throw new BootException("Caduceus failed to start: " + e, 1, e);
        }
    }

    /** The database from {@code opening}; its failure is rethrown as thrown on the opening thread. */
    private static Database awaitDatabase(FutureTask<Database> opening) {
        try {
            return opening.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the database was opening", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException(e.getCause());
        }
    }

    /** The database once {@code opening} finished, to close it after a failed boot; null if it failed. */
    private static Database awaitQuietly(FutureTask<Database> opening) {
        try {
            return awaitDatabase(opening);
        } catch (RuntimeException | Error e) {
            return null;
        }
    }

    /**
     * Boots the plugins against a scratch database (the server's state is untouched), prints what
     * each jar is and contributes, and stops them again.
     */
    public static void listPlugins(Options options, PrintWriter out) throws BootException {
        var config = loadConfig(options);
        Path scratch;
        try {
            scratch = Files.createTempDirectory("caduceus-plugins");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var database = openDatabase(scratch);
        var scheduler = new TaskScheduler();
        var json = Json.newMapper();
        PluginHost host = null;
        try {
            host = PluginHost.load(hostOptions(options, config));
            var contexts = new PluginContexts(config, Version.CURRENT, json, database, scheduler, new Readiness(),
                    new LateServices(), Clock.systemUTC());
            var booted = host.start(migrate(database), contexts::create);
            var registries = Registries.freeze(booted);
            PluginListing.print(out, registries);
        } catch (PluginBootException | MigrationException e) {
            throw new BootException(e.getMessage(), 1, e);
        } finally {
            cleanUp(host, scheduler, database);
            deleteQuietly(scratch);
        }
    }

    /**
     * The boot steps up to freezing the registries, without Jetty, against the database {@code <databaseDir>/batch.db}
     * (created if missing), never the server's {@code caduceus.db}: {@code caduceus batch} may run while a
     * server uses the same {@code $CADUCEUS_HOME}. {@code flags} override the configuration (the batch
     * model flags).
     */
    public static HeadlessHost headless(Options options, Path databaseDir) throws BootException {
        var config = loadConfig(options);
        prepareWorkspace(config);
        Database database;
        try {
            Files.createDirectories(databaseDir);
            database = Database.open(databaseDir.resolve("batch.db"));
            Migrations.apply(database, Migrations.PLATFORM, PlatformMigrations.scripts());
        } catch (IOException | RuntimeException e) {
            throw new BootException("Cannot open " + databaseDir.resolve("batch.db") + ": " + e.getMessage(), 1, e);
        }
        var scheduler = new TaskScheduler();
        var json = Json.newMapper();
        PluginHost host = null;
        try {
            host = PluginHost.load(hostOptions(options, config));
            var late = new LateServices();
            var contexts = new PluginContexts(config, Version.CURRENT, json, database, scheduler, new Readiness(),
                    late, Clock.systemUTC());
            var booted = host.start(migrate(database), contexts::create);
            var registries = Registries.freeze(booted);
            late.bind(registries.tools(), deployment(registries, List.of(), config, "local"),
                    registries.responseHistory());
            scheduler.open();
            var started = host;
            return new HeadlessHost(config, registries, json, () -> cleanUp(started, scheduler, database));
        } catch (PluginBootException | MigrationException e) {
            cleanUp(host, scheduler, database);
            throw new BootException(e.getMessage(), 1, e);
        } catch (RuntimeException e) {
            cleanUp(host, scheduler, database);
            throw new BootException("Caduceus failed to start: " + e, 1, e);
        }
    }

    /** The bound address. */
    public URI uri() {
        return server.uri();
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
            cleanUp(plugins, scheduler, database);
            LOG.info("Caduceus stopped");
        } finally {
            stopped.countDown();
        }
    }

    // ---- boot steps -------------------------------------------------------------------------

    private static PlatformConfig loadConfig(Options options) throws BootException {
        try {
            var loaded = new ConfigLoader(options.env(), userHome(options.env()))
                    .load(options.configFile(), options.flags());
            loaded.warnings().forEach(w -> LOG.warn("{}", w));
            return loaded.config();
        } catch (ConfigException e) {
            throw new BootException(e.getMessage(), 2, e);
        }
    }

    private static Path prepareHome(Path home) throws BootException {
        try {
            if (!Files.isDirectory(home)) {
                Files.createDirectories(home);
                if (home.getFileSystem().supportedFileAttributeViews().contains("posix"))
                    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
            }
            Files.createDirectories(home.resolve("tmp"));
            return home;
        } catch (IOException e) {
            throw new BootException("Cannot create the state directory " + home + " (CADUCEUS_HOME): " + e.getMessage(),
                    2, e);
        }
    }

    /**
     * {@code tools.workspace}, created mode 0700 at start-up; refused when it holds the
     * state directory or its files ({@link WorkspaceCheck}).
     */
    private static void prepareWorkspace(PlatformConfig config) throws BootException {
        var workspace = config.workspace();
        var stateFiles = new ArrayList<Path>(List.of(ApiKeys.keyFileIn(config.home()),
                config.home().resolve(DATABASE)));
        config.configFile().ifPresent(stateFiles::add);
        WorkspaceCheck.check(workspace, config.source("tools.workspace"), config.home(), stateFiles);
        try {
            if (Files.isDirectory(workspace)) return;
            Files.createDirectories(workspace);
            if (workspace.getFileSystem().supportedFileAttributeViews().contains("posix"))
                Files.setPosixFilePermissions(workspace, PosixFilePermissions.fromString("rwx------"));
        } catch (IOException e) {
            throw new BootException("Cannot create the workspace " + workspace + " (tools.workspace): " + e.getMessage(),
                    2, e);
        }
    }

    private static ApiKey resolveKey(PlatformConfig config, Path home) throws BootException {
        var source = config.source("server.api_key").replaceFirst("^environment variable ", "");
        try {
            return new ApiKeys(home, new SecureRandom()).resolve(config.server().apiKey().map(Secret::reveal), source);
        } catch (ApiKeyException e) {
            throw new BootException(e.getMessage(), 2, e);
        }
    }

    /**
     * The state database of {@code home} ({@code caduceus.db}, created if missing, the platform's
     * migrations applied), for commands that work on it beside a running server ({@code key add}).
     */
    static Database openStateDatabase(Path home) throws BootException {
        try {
            Files.createDirectories(home);
            return openDatabase(home);
        } catch (IOException | RuntimeException e) {
            throw new BootException("Cannot open " + home.resolve(DATABASE) + ": " + e.getMessage(), 2, e);
        }
    }

    private static Database openDatabase(Path home) {
        var database = Database.open(home.resolve(DATABASE));
        Migrations.apply(database, Migrations.PLATFORM, PlatformMigrations.scripts());
        return database;
    }

    private static PluginHost.Options hostOptions(Options options, PlatformConfig config) {
        var roots = new ArrayList<Path>();
        if (options.appHome() != null) roots.add(options.appHome().resolve("plugins").toAbsolutePath().normalize());
        var extra = config.plugins().dir().toAbsolutePath().normalize();
        if (Files.isDirectory(extra) && !roots.contains(extra)) roots.add(extra);
        return new PluginHost.Options(roots, config.plugins().enabled(), config.plugins().disabled(),
                !options.lenient(), Version.COMPATIBILITY);
    }

    /**
     * The before-start hook: a plugin's own migrations, listed from its jar, in one transaction each. A
     * plugin without scripts has nothing to apply or check, so it costs no trip to the writer thread
     * (the bookkeeping tables exist since the platform's own migrations).
     */
    private static PluginHost.BeforeStart migrate(Database database) {
        return plugin -> {
            var scripts = Migrations.fromJar(plugin.jar(), plugin.id());
            if (!scripts.isEmpty()) Migrations.apply(database, plugin.id(), scripts);
        };
    }

    private static ObjectMapper mapperOf(List<dev.caduceus.platform.plugin.StartedPlugin> started, String pluginId,
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

    private static Deployment deployment(Registries registries, List<RouteEntry> routes, PlatformConfig config,
                                         String runtimeId) {
        return new DeploymentView(
                registries.plugins().stream().map(PluginReport::toStatus).toList(),
                routes.stream().map(r -> new Deployment.RouteInfo(r.method(), r.template(), r.name(), r.family(),
                        r.pluginId())).toList(),
                registries.features(), registries.familyFeatures(), runtimeId, !config.server().corsOrigins().isEmpty());
    }

    /** The named keys' run limits (the admin key has none of its own). */
    private static dev.caduceus.platform.agent.OwnerPolicies ownerPolicies(NamedKeys keys) {
        return new dev.caduceus.platform.agent.OwnerPolicies() {
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
                server.maxIdleConnectionsPerClient());
    }

    private static HttpServer startHttp(PlatformConfig config, HttpServer.Unstarted http, Router router)
            throws BootException {
        try {
            return http.start(router);
        } catch (PortInUseException e) {
            var source = config.source("server.port").replaceFirst("^environment variable ", "");
            if (source.equals("default")) source = "API_SERVER_PORT";
            throw new BootException("Port " + e.port() + " is already in use (" + source + ")", 2, e);
        }
    }

    private static void closeQuietly(RunJournal journal) {
        if (journal != null) journal.close();
    }

    private static void cleanUp(PluginHost host, TaskScheduler scheduler, Database database) {
        scheduler.close();
        if (host != null) host.close();
        if (database != null) database.close();
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // scratch space; the OS cleans temp eventually
        }
    }
}
