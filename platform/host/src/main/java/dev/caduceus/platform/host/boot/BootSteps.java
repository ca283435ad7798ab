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
import dev.caduceus.platform.host.http.ServedRoute;
import dev.caduceus.platform.host.json.Json;
import dev.caduceus.platform.host.logging.LogSettings;
import dev.caduceus.platform.host.logging.LogSetup;
import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.outbound.ProxyRules;
import dev.caduceus.platform.host.config.PluginConfigImpl;
import dev.caduceus.platform.host.plugin.BootedPlugins;
import dev.caduceus.platform.host.plugin.DeploymentView;
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
 * The host's boot steps, each a function of what the steps before it made: the configuration, the state
 * directory and the workspace, the database (opened on its own thread), the plugin host's options and the
 * before-start hook (a plugin's settings declared, its migrations applied). The platform's one wiring point
 * ({@code dev.caduceus.platform.runtime.assembly.Assembly}) calls them in order; commands that boot nothing
 * ({@code key add}, {@code db check}, {@code plugins --list}) call the few they need. Stateless.
 *
 * <p>Failures are {@link BootException}s with their exit status (2: configuration, key, workspace and port
 * problems; 1: a plugin or migration failure, or anything unexpected).
 */
public final class BootSteps {
    private static final Logger LOG = LoggerFactory.getLogger(BootSteps.class);
    /** The SQLite file of the state directory. */
    public static final String DATABASE = "caduceus.db";

    private BootSteps() {}

    /**
     * The state a boot of {@code mode} prepares, before anything opens: serve refuses when the server is disabled
     * (exit 0) and creates the state directory; every mode but the scratch one creates the workspace.
     *
     * @return the scratch directory of {@link BootMode.Scratch} (the caller deletes it), else null
     */
    public static Path prepareState(PlatformConfig config, BootMode mode) throws BootException {
        if (mode instanceof BootMode.Serve) {
            if (!config.serverEnabled())
                throw new BootException("not serving: the API server is disabled (server.enabled is false, from "
                        + config.serverEnabledSource() + "); set API_SERVER_ENABLED=true or remove that setting to serve",
                        0, null);
            prepareHome(config.home());
        }
        if (mode instanceof BootMode.Scratch) return scratchDirectory();
        prepareWorkspace(config);
        return null;
    }

    /**
     * Opens the database of {@code mode} on its own thread, so that the boot goes on with what does not need it
     * (the key, reading the plugin jars, building Jetty): opening is ~0.5 s of a cold start, mostly one-time
     * initialisation (sqlite-jdbc, Jdbi, and the JFR event metadata that Jdbi's first statement event loads).
     * {@link #awaitDatabase} takes the result; the platform's migrations applied are recorded in {@code applied}.
     */
    public static FutureTask<Database> openInBackground(BootMode mode, PlatformConfig config, Path scratch,
                                                        Map<String, Applied> applied) {
        var opening = new FutureTask<>(() -> openDatabase(mode, config, scratch, applied));
        Thread.ofPlatform().name("caduceus-db-open").start(opening);
        return opening;
    }

    /** The admin key of {@code config}'s state directory (generated at the first start). */
    public static ApiKey resolveKey(PlatformConfig config) throws BootException {
        return resolveKey(config, config.home());
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
    public static Database openStateDatabase(BootOptions options) throws BootException {
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
    public static Database connectStateDatabase(BootOptions options) throws BootException {
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
    public static List<PluginHost.Found> surveyPlugins(BootOptions options) throws BootException {
        var config = loadConfig(options);
        try {
            return PluginHost.survey(hostOptions(options, config));
        } catch (PluginBootException e) {
            throw new BootException(e.getMessage(), 1, e);
        }
    }

    // ---- boot steps -------------------------------------------------------------------------

    /** {@code ~}: {@code $HOME} as the shell sees it, else the JVM's {@code user.home}. */
    private static Path userHome(Map<String, String> env) {
        var home = env.get("HOME");
        return Path.of(home == null || home.isBlank() ? System.getProperty("user.home") : home);
    }

    /** Step 1: the configuration of {@code options}, with the logging it sets applied before anything logs. */
    public static PlatformConfig loadConfig(BootOptions options) throws BootException {
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
    public static String withSource(ConfigException e, PlatformConfig config) {
        if (e.key() == null || e.key().isBlank()) return e.getMessage();
        var key = e.key().replaceAll("\\[\\d+\\].*$", ""); // args[0] -> args
        var source = config.tree().source(key);
        // a missing key (model.routes.r.base_url) came from where its nearest parent was set
        for (int dot = key.lastIndexOf('.'); source.equals("default") && dot > 0; dot = key.lastIndexOf('.')) {
            key = key.substring(0, dot);
            source = config.tree().source(key);
        }
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
    private static Database openDatabase(BootMode mode, PlatformConfig config, Path scratch, Map<String, Applied> applied)
            throws BootException {
        return switch (mode) {
            case BootMode.Serve serve -> openConfigured(config, applied);
            case BootMode.Migrate migrate -> openConfigured(config, applied);
            case BootMode.Scratch listing -> openDatabase(scratch);
            case BootMode.Headless headless -> {
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
    public static Database awaitDatabase(FutureTask<Database> opening) throws BootException {
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
    public static ProxyRules proxyRules(PlatformConfig config, Map<String, String> env) throws BootException {
        try {
            return ProxyRules.from(PluginConfigImpl.section("http", config.tree()), env);
        } catch (IllegalArgumentException e) {
            throw new BootException("Configuration error: " + e.getMessage() + config.configFile()
                    .map(f -> " (config " + f + " or the environment)").orElse(" (from the environment)"), 2, e);
        }
    }

    /** Closes the database of {@code opening} once it has opened (waiting for it); nothing if it failed to. */
    public static void closeQuietly(FutureTask<Database> opening) {
        try {
            awaitDatabase(opening).close();
        } catch (BootException | RuntimeException | Error e) {
            // it never opened: nothing to close (its failure is the boot's, reported there)
        }
    }

    public static PluginHost.Options hostOptions(BootOptions options, PlatformConfig config) {
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
     * (the bookkeeping tables exist since the platform's own migrations). Its declared settings are checked
     * first.
     */
    public static PluginHost.BeforeStart beforeStart(Database database, DeclaredSettings settings,
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

    /** Deletes a scratch directory and what it holds; what cannot be deleted is left to the OS's temp cleaning. */
    public static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // scratch space; the OS cleans temp eventually
        }
    }
}
