package dev.caduceus.platform.host.boot;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.auth.ApiKey;
import dev.caduceus.platform.host.auth.ApiKeyException;
import dev.caduceus.platform.host.auth.ApiKeys;
import dev.caduceus.platform.host.config.ConfigLoader;
import dev.caduceus.platform.host.config.DeclaredSettings;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.platform.host.config.Secret;
import dev.caduceus.platform.host.health.Readiness;
import dev.caduceus.platform.host.http.RouteEntry;
import dev.caduceus.platform.host.json.Json;
import dev.caduceus.platform.host.logging.LogSettings;
import dev.caduceus.platform.host.logging.LogSetup;
import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.outbound.ProxyRules;
import dev.caduceus.platform.host.config.PluginConfigImpl;
import dev.caduceus.platform.host.plugin.BootedPlugins;
import dev.caduceus.platform.host.plugin.DeploymentView;
import dev.caduceus.platform.host.plugin.LateServices;
import dev.caduceus.platform.host.plugin.PluginBootException;
import dev.caduceus.platform.host.plugin.PluginContexts;
import dev.caduceus.platform.host.plugin.PluginDescriptorView;
import dev.caduceus.platform.host.plugin.PluginHost;
import dev.caduceus.platform.host.plugin.PluginReport;
import dev.caduceus.platform.host.plugin.Registries;
import dev.caduceus.platform.host.schedule.TaskScheduler;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.MigrationException;
import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.platform.host.store.PostgresTarget;
import dev.caduceus.platform.host.store.PlatformMigrations;
import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.config.ConfigException;
import dev.caduceus.spi.config.PluginConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The boot sequence of the architecture doc (1.2), steps 1 to 6, written once for every application:
 * the configuration, the state directory and the workspace, the database, the plugins loaded, started
 * and frozen into registries. The application's own steps (serve: the runtime and Jetty; batch: the
 * runtime) run inside it as an {@link Application}, so every failure is handled here, in one place:
 * what was started is closed in reverse, and the failure becomes a {@link BootException} with its exit
 * status (2: configuration, key, workspace and port problems; 1: a plugin or migration failure, or
 * anything unexpected). The {@link Mode} says which state a boot prepares and which database it opens.
 *
 * <p>Lifecycle: built and run by {@link #run} on the calling thread, which it is confined to; once
 * started, its owner calls {@link #close} (stops the scheduler and the plugins, closes the database).
 */
public final class Boot implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Boot.class);
    private static final String DATABASE = "caduceus.db";

    /**
     * What to start.
     *
     * @param configFile  {@code --config FILE}, if given
     * @param flags       command-line settings ({@code --port} → {@code server.port}), highest precedence
     * @param lenient     skip plugins that fail instead of stopping the boot
     * @param env         the environment: the process's plus the secrets the launcher handed over (Main)
     * @param appHome     the installation directory (its {@code plugins/} is scanned), or null
     * @param clock       the platform's clock ({@link #clock()}: plugins' {@code ctx.clock()}, run and key
     *                    timestamps); the system UTC clock unless a test host moves time by hand
     */
    public record Options(Optional<Path> configFile, List<ConfigLoader.Flag> flags, boolean lenient,
                          Map<String, String> env, Path appHome, Clock clock) {
        public Options {
            flags = List.copyOf(flags);
            env = Map.copyOf(env);
            java.util.Objects.requireNonNull(clock, "clock");
        }

        /** On the system UTC clock, as every real process runs. */
        public Options(Optional<Path> configFile, List<ConfigLoader.Flag> flags, boolean lenient,
                       Map<String, String> env, Path appHome) {
            this(configFile, flags, lenient, env, appHome, Clock.systemUTC());
        }
    }

    /** Which kind of boot: the state it prepares and the database it opens. */
    public sealed interface Mode {
        /**
         * {@code caduceus serve}: refuses when {@code server.enabled} is false (exit 0); creates the state
         * directory and the workspace, resolves the admin key; the database is
         * {@code $CADUCEUS_HOME/caduceus.db}.
         */
        record Serve() implements Mode {}

        /** {@code caduceus plugins}: a scratch database, deleted at {@link #close}; the server's state is untouched. */
        record Scratch() implements Mode {}

        /**
         * {@code caduceus batch}: creates the workspace; the database is {@code <databaseDir>/batch.db}
         * (created if missing), never the server's {@code caduceus.db}: a batch may run while a server
         * uses the same {@code $CADUCEUS_HOME}.
         */
        record Headless(Path databaseDir) implements Mode {}

        /**
         * {@code caduceus db migrate}: the configured database (as {@link Serve}), the platform's and every
         * enabled plugin's migrations applied as the plugins start; nothing served, no key resolved.
         */
        record Migrate() implements Mode {}
    }

    /** An application's steps inside the boot, so that their failures are handled like the boot's own. */
    public interface Application<T> {
        /**
         * While the database opens on its own thread, after the plugin jars are read: work that needs
         * neither the database nor started plugins (serve builds Jetty here).
         */
        default void whileDatabaseOpens(Boot boot) throws BootException {}

        /**
         * After step 6 (registries frozen): the application's own steps; its result is the boot's. What it
         * opens that must be closed if a later step fails goes to {@link Boot#onFailure}.
         */
        T started(Boot boot) throws BootException;
    }

    private final Options options;
    private final PlatformConfig config;
    private final FutureTask<Database> opening;
    private final Map<String, Applied> applied;
    private final Path scratch;
    private final BootTimer timer;
    private final Clock clock;
    private final TaskScheduler scheduler = new TaskScheduler();
    private final Readiness readiness = new Readiness();
    private final LateServices late = new LateServices();
    private final List<Runnable> onFailure = new ArrayList<>();
    private ObjectMapper json;
    private Optional<ApiKey> apiKey = Optional.empty();
    private PluginHost plugins;
    private Database database;
    private PluginContexts contexts;
    private BootedPlugins booted;
    private Registries registries;
    private DeclaredSettings settings;
    private OutboundClient outbound;
    private final dev.caduceus.platform.host.metrics.MetricsRegistry metrics = new dev.caduceus.platform.host.metrics.MetricsRegistry();

    private Boot(Options options, PlatformConfig config, FutureTask<Database> opening, Map<String, Applied> applied,
                 Path scratch, BootTimer timer) {
        this.options = options;
        this.config = config;
        this.opening = opening;
        this.applied = applied;
        this.scratch = scratch;
        this.timer = timer;
        this.clock = options.clock();
    }

    /** Steps 1 to 6 and nothing else: for a command that uses the registries and then {@link #close}s. */
    public static Boot start(Options options, Mode mode) throws BootException {
        return run(options, mode, boot -> boot);
    }

    /**
     * Steps 1 to 6 without Jetty for {@code caduceus batch} (see {@link Mode.Headless}): the late services
     * are bound with a deployment of no routes, the scheduler is open; closing the result stops it all.
     */
    public static HeadlessHost headless(Options options, Path databaseDir) throws BootException {
        return run(options, new Mode.Headless(databaseDir), boot -> {
            boot.late.bind(boot.registries.tools(), boot.deployment(List.of(), "local"), boot.registries.services());
            boot.scheduler.open();
            return new HeadlessHost(boot.config, boot.registries, boot.json, boot::close);
        });
    }

    /** Runs the boot sequence with {@code app}'s steps in it; the one place a failed boot is handled. */
    public static <T> T run(Options options, Mode mode, Application<T> app) throws BootException {
        var timer = new BootTimer();
        var config = loadConfig(options);                                        // 1. config
        if (mode instanceof Mode.Serve) {
            if (!config.serverEnabled())
                throw new BootException("not serving: the API server is disabled (server.enabled is false, from "
                        + config.serverEnabledSource() + "); set API_SERVER_ENABLED=true or remove that setting to serve",
                        0, null);
            prepareHome(config.home());
        }
        if (!(mode instanceof Mode.Scratch)) prepareWorkspace(config);
        var scratch = mode instanceof Mode.Scratch ? scratchDirectory() : null;
        // 2. The database opens on its own thread while this one goes on with what does not need it (key,
        // JSON, reading the plugin jars): opening is ~0.5 s of a cold start, mostly one-time initialisation
        // (sqlite-jdbc, Jdbi, and the JFR event metadata that Jdbi's first statement event loads).
        Map<String, Applied> applied = java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>());
        var opening = new FutureTask<>(() -> openDatabase(mode, config, scratch, applied));
        Thread.ofPlatform().name("caduceus-db-open").start(opening);
        var boot = new Boot(options, config, opening, applied, scratch, timer);
        try {
            return boot.steps(mode, app);
        } catch (PluginBootException | MigrationException e) {
            boot.fail();
            throw new BootException(e.getMessage(), 1, e);
        } catch (ConfigException e) {                                            // a plugin's setting
            boot.fail();
            throw new BootException(withSource(e, config), 2, e);
        } catch (BootException e) {
            boot.fail();
            throw e;
        } catch (RuntimeException e) {
            boot.fail();
            throw new BootException("Caduceus failed to start: " + e, 1, e);
        }
    }

    private <T> T steps(Mode mode, Application<T> app) throws BootException {
        if (mode instanceof Mode.Serve) apiKey = Optional.of(resolveKey(config, config.home()));
        json = Json.newMapper();
        timer.lap("config");
        plugins = PluginHost.load(hostOptions(options, config));                // 3. load
        plugins.findEntryPoints();                                               // 4a. while the database opens
        timer.lap("plugin jars");
        app.whileDatabaseOpens(this);
        database = awaitDatabase(opening);
        timer.lap("database");                                                   //    (the wait for it)
        outbound = new OutboundClient(proxyRules(config, options.env()), "caduceus/" + Version.CURRENT);
        contexts = new PluginContexts(config, Version.CURRENT, json, database, scheduler, readiness, late, clock,
                outbound, options.env(), metrics);
        settings = new DeclaredSettings(config.tree());
        booted = plugins.start(beforeStart(database, settings, applied), contexts::create); // 4-5. start, collect
        registries = Registries.freeze(booted);                                  // 6. freeze
        settings.unknownKeys().forEach(w -> LOG.warn("{}", w));                  //    what nothing declares
        timer.lap("plugins");
        return app.started(this);
    }

    // ---- what a started boot offers its application ------------------------------------------

    public Options options() { return options; }

    public PlatformConfig config() { return config; }

    /** The configuration keys the started plugins declared, checked. */
    public DeclaredSettings settings() { return settings; }

    public Clock clock() { return clock; }

    public ObjectMapper json() { return json; }

    /** The admin key; resolved by {@link Mode.Serve} only. */
    public Optional<ApiKey> apiKey() { return apiKey; }

    public Database database() { return database; }

    /**
     * The migrations this boot ran, per owner in the order they were checked (the platform first, then
     * each started plugin that keeps tables): what {@code caduceus db migrate} reports.
     */
    public List<Applied> migrationsApplied() {
        synchronized (applied) {
            return List.copyOf(applied.values());
        }
    }

    /**
     * One owner's migrations at boot.
     *
     * @param owner   {@link Migrations#PLATFORM} or a plugin id
     * @param applied the scripts applied now, by version (empty: it was up to date)
     * @param version the newest version this build knows for it, which the database is at now
     */
    public record Applied(String owner, List<dev.caduceus.platform.host.store.Script> applied, int version) {
        public Applied {
            applied = List.copyOf(applied);
        }
    }

    /** Not yet open: the application opens it once its tasks may run. */
    public TaskScheduler scheduler() { return scheduler; }

    public Readiness readiness() { return readiness; }

    /** Unbound: the application binds what it has (step 6's views, its runs, its models). */
    public LateServices late() { return late; }

    public PluginContexts contexts() { return contexts; }

    /** Every metric of this process: the host's, the plugins', the JVM's (on {@code GET /metrics}). */
    public dev.caduceus.platform.host.metrics.MetricsRegistry metrics() { return metrics; }

    /** The one outbound HTTP client every plugin is handed (closed after the plugins stop). */
    public OutboundClient outbound() { return outbound; }

    public BootedPlugins booted() { return booted; }

    public Registries registries() { return registries; }

    /** Times a step for the start-up log line ({@link #timings()}). */
    public void lap(String step) {
        timer.lap(step);
    }

    /** {@code 412 ms (config 30, …); 640 ms since the process started}. */
    public String timings() {
        return timer.toString();
    }

    /** Run, before the plugins stop, if a later step of the boot fails (the journal commits its last events). */
    public void onFailure(Runnable close) {
        onFailure.add(close);
    }

    /** The deployment view plugins read: the registries' plugins and features, {@code routes}, {@code runtimeId}. */
    public Deployment deployment(List<RouteEntry> routes, String runtimeId) {
        return new DeploymentView(
                registries.plugins().stream().map(PluginReport::toStatus).toList(),
                routes.stream().map(r -> new Deployment.RouteInfo(r.method(), r.template(), r.name(), r.family(),
                        r.pluginId())).toList(),
                registries.features(), registries.familyFeatures(), runtimeId, !config.server().corsOrigins().isEmpty(),
                registries.tools(), registries.toolSources().stream()
                        .sorted(java.util.Comparator.comparing(c -> c.value().id()))
                        .<dev.caduceus.spi.tool.ToolSource>map(dev.caduceus.platform.host.plugin.BoundToolSource::of).toList());
    }

    /** Stops the scheduler and the plugins (in reverse order), closes the database, deletes a scratch directory. */
    @Override
    public void close() {
        cleanUp(database);
    }

    private void fail() {
        for (int i = onFailure.size() - 1; i >= 0; i--) onFailure.get(i).run();
        cleanUp(database != null ? database : awaitQuietly(opening));
    }

    private void cleanUp(Database db) {
        scheduler.close();
        if (plugins != null) plugins.close();
        if (outbound != null) outbound.close();
        if (db != null) db.close();
        if (scratch != null) deleteQuietly(scratch);
    }

    // ---- state outside a boot ---------------------------------------------------------------

    /** {@code $CADUCEUS_HOME}, or {@code ~/.caduceus}. */
    public static Path stateDir(Map<String, String> env) {
        return new ConfigLoader(env, userHome(env)).home();
    }

    /**
     * The state database of {@code home} ({@code caduceus.db}, created if missing, the platform's
     * migrations applied), for commands that work on it beside a running server ({@code key add}).
     */
    public static Database openStateDatabase(Path home) throws BootException {
        try {
            Files.createDirectories(home);
            return openDatabase(home);
        } catch (IOException | RuntimeException e) {
            throw new BootException("Cannot open " + home.resolve(DATABASE) + ": " + e.getMessage(), 2, e);
        }
    }

    /**
     * The database the configuration of {@code options} names ({@code database.url}, else
     * {@code caduceus.db} in the state directory), the platform's migrations applied: for commands that
     * work on it beside running servers ({@code key add}, {@code db check}).
     */
    public static Database openStateDatabase(Options options) throws BootException {
        var config = loadConfig(options);
        try {
            Files.createDirectories(config.home());
        } catch (IOException e) {
            throw new BootException("Cannot create " + config.home() + ": " + e.getMessage(), 2, e);
        }
        try {
            return openConfigured(config);
        } catch (MigrationException e) {
            throw new BootException(e.getMessage(), 1, e);
        }
    }

    /**
     * The database the configuration of {@code options} names, connected but <em>not</em> migrated: for
     * {@code caduceus db check}, which reports what is pending instead of applying it. On SQLite the file
     * is created if missing (empty). Exit status 2 for a malformed {@code database.url}, a server that cannot
     * be reached or refuses the login, as at {@code serve}.
     */
    public static Database connectStateDatabase(Options options) throws BootException {
        var config = loadConfig(options);
        if (config.storage().url().isEmpty()) {
            try {
                Files.createDirectories(config.home());
                return Database.open(config.home().resolve(DATABASE));
            } catch (IOException | RuntimeException e) {
                throw new BootException("Cannot open " + config.home().resolve(DATABASE) + ": " + e.getMessage(), 2, e);
            }
        }
        return connectConfigured(config);
    }

    /**
     * The plugin jars a boot with {@code options} would find (the distribution's {@code plugins/} and
     * {@code plugins.dir}), and whether each would start; read from their manifests, nothing loaded.
     */
    public static List<PluginHost.Found> surveyPlugins(Options options) throws BootException {
        var config = loadConfig(options);
        try {
            return PluginHost.survey(hostOptions(options, config));
        } catch (PluginBootException e) {
            throw new BootException(e.getMessage(), 1, e);
        }
    }

    /** The configuration of {@code options}, as a command that boots nothing needs it. */
    public static PlatformConfig config(Options options) throws BootException {
        return loadConfig(options);
    }

    // ---- boot steps -------------------------------------------------------------------------

    /** {@code ~}: {@code $HOME} as the shell sees it, else the JVM's {@code user.home}. */
    private static Path userHome(Map<String, String> env) {
        var home = env.get("HOME");
        return Path.of(home == null || home.isBlank() ? System.getProperty("user.home") : home);
    }

    private static PlatformConfig loadConfig(Options options) throws BootException {
        try {
            var loaded = new ConfigLoader(options.env(), userHome(options.env()))
                    .load(options.configFile(), options.flags());
            LogSetup.apply(LogSettings.from(loaded.logging()));                  // before anything logs
            loaded.warnings().forEach(w -> LOG.warn("{}", w));
            return loaded.config();
        } catch (ConfigException e) {
            throw new BootException(e.getMessage(), 2, e);
        }
    }

    /**
     * A plugin's configuration error with where the key was set (the file, or the environment
     * variable) when the plugin could not say it: it sees values, not their sources.
     */
    static String withSource(ConfigException e, PlatformConfig config) {
        if (e.key() == null || e.key().isBlank()) return e.getMessage();
        var source = config.tree().source(e.key().replaceAll("\\[\\d+\\].*$", "")); // args[0] -> args
        if (source.equals("default") || e.getMessage().contains(source)) return e.getMessage();
        return e.getMessage() + " (" + source + ")";
    }

    private static void prepareHome(Path home) throws BootException {
        try {
            if (!Files.isDirectory(home)) {
                Files.createDirectories(home);
                if (home.getFileSystem().supportedFileAttributeViews().contains("posix"))
                    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
            }
            Files.createDirectories(home.resolve("tmp"));
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

    private static Path scratchDirectory() throws BootException {
        try {
            return Files.createTempDirectory("caduceus-plugins");
        } catch (IOException e) {
            throw new BootException("Cannot create a scratch directory: " + e.getMessage(), 1, e);
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

    /** The database of {@code mode}; runs on the opening thread. */
    private static Database openDatabase(Mode mode, PlatformConfig config, Path scratch, Map<String, Applied> applied)
            throws BootException {
        return switch (mode) {
            case Mode.Serve serve -> openConfigured(config, applied);
            case Mode.Migrate migrate -> openConfigured(config, applied);
            case Mode.Scratch listing -> openDatabase(scratch);
            case Mode.Headless headless -> {
                var file = headless.databaseDir().resolve("batch.db");
                try {
                    Files.createDirectories(headless.databaseDir());
                    var database = Database.open(file);
                    Migrations.apply(database, Migrations.PLATFORM, PlatformMigrations.scripts());
                    yield database;
                } catch (IOException | RuntimeException e) {
                    throw new BootException("Cannot open " + file + ": " + e.getMessage(), 1, e);
                }
            }
        };
    }

    private static Database openDatabase(Path home) {
        var database = Database.open(home.resolve(DATABASE));
        Migrations.apply(database, Migrations.PLATFORM, PlatformMigrations.scripts());
        return database;
    }

    /**
     * The store {@code config} names, the platform's migrations applied: PostgreSQL when {@code database.url}
     * is set, else the SQLite file in the state directory. A malformed URL, or a server that cannot be
     * reached or refuses the login, is exit status 2 with the URL (never its password) and the reason.
     */
    private static Database openConfigured(PlatformConfig config) throws BootException {
        return openConfigured(config, new java.util.HashMap<>());
    }

    /** {@link #openConfigured(PlatformConfig)}, recording the platform's migrations in {@code applied}. */
    private static Database openConfigured(PlatformConfig config, Map<String, Applied> applied) throws BootException {
        var storage = config.storage();
        Database database;
        if (storage.url().isEmpty()) {
            database = Database.open(config.home().resolve(DATABASE));
        } else {
            database = connectConfigured(config);
        }
        try {
            var scripts = PlatformMigrations.scripts(database.dialect());
            var done = Migrations.apply(database, Migrations.PLATFORM, scripts);
            applied.put(Migrations.PLATFORM, new Applied(Migrations.PLATFORM, done, scripts.getLast().version()));
            return database;
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    /** PostgreSQL as {@code database.url} names it, connected (exit status 2 when that fails), not migrated. */
    private static Database connectConfigured(PlatformConfig config) throws BootException {
        var storage = config.storage();
        PostgresTarget target;
        try {
            target = PostgresTarget.parse(storage.url().get().reveal(), storage.user(), storage.password().map(Secret::reveal));
        } catch (PostgresTarget.BadUrl e) {
            throw new BootException("Configuration error: database.url (" + config.source("database.url") + "): "
                    + e.getMessage(), 2, e);
        }
        try {
            return Database.connect(target, storage.poolSize());
        } catch (dev.caduceus.spi.store.PluginDatabase.StoreException e) {
            throw new BootException(e.getMessage() + " (database.url from " + config.source("database.url") + ")", 2, e);
        }
    }

    /** The database from {@code opening}; its failure is rethrown as thrown on the opening thread. */
    private static Database awaitDatabase(FutureTask<Database> opening) throws BootException {
        try {
            return opening.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the database was opening", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof BootException b) throw b;
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException(e.getCause());
        }
    }

    /** The proxies of the {@code http} section over the environment's; a malformed one is a configuration error. */
    private static ProxyRules proxyRules(PlatformConfig config, Map<String, String> env) throws BootException {
        try {
            return ProxyRules.from(PluginConfigImpl.section("http", config.tree()), env);
        } catch (IllegalArgumentException e) {
            throw new BootException("Configuration error: " + e.getMessage() + config.configFile()
                    .map(f -> " (config " + f + " or the environment)").orElse(" (from the environment)"), 2, e);
        }
    }

    /** The database once {@code opening} finished, to close it after a failed boot; null if it failed. */
    private static Database awaitQuietly(FutureTask<Database> opening) {
        try {
            return awaitDatabase(opening);
        } catch (BootException | RuntimeException | Error e) {
            return null;
        }
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
    /** Before a plugin starts: its declared settings are checked, then its migrations run. */
    private static PluginHost.BeforeStart beforeStart(Database database, DeclaredSettings settings,
                                                      Map<String, Applied> applied) {
        return new PluginHost.BeforeStart() {
            @Override
            public void declare(PluginDescriptorView plugin, List<PluginConfig.Setting> declared) {
                settings.declare(plugin.id(), declared);
            }

            @Override
            public void prepare(PluginDescriptorView plugin) {
                var scripts = Migrations.fromJar(plugin.jar(), plugin.id(), database.dialect());
                if (scripts.isEmpty()) return;
                var done = Migrations.apply(database, plugin.id(), scripts);
                applied.put(plugin.id(), new Applied(plugin.id(), done, scripts.getLast().version()));
            }
        };
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // scratch space; the OS cleans temp eventually
        }
    }
}
