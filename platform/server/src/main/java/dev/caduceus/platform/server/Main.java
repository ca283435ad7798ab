package dev.caduceus.platform.server;

import dev.caduceus.platform.host.auth.ApiKeyException;
import dev.caduceus.platform.host.auth.ApiKeys;
import dev.caduceus.platform.batch.BatchCommand;
import dev.caduceus.platform.host.boot.BootOptions;
import dev.caduceus.platform.host.boot.BootException;
import dev.caduceus.platform.host.boot.Version;
import dev.caduceus.platform.host.config.ConfigLoader;
import dev.caduceus.platform.host.config.DotEnv;
import dev.caduceus.platform.host.config.Profiles;
import dev.caduceus.platform.host.logging.LogSettings;
import dev.caduceus.platform.host.logging.LogSetup;
import dev.caduceus.spi.config.ConfigException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code caduceus} command line. {@code caduceus} alone, or with only options, means
 * {@code serve}. Exit status: 0 after a clean stop, 1 when a plugin stops the boot, 2 for usage,
 * configuration and key errors and a busy port.
 */
@Command(name = "caduceus", mixinStandardHelpOptions = true, versionProvider = Main.VersionProvider.class,
        description = {"Caduceus: an OpenAI-compatible agent API server composed from drop-in plugins.",
                "With no command, runs 'serve'."},
        subcommands = {Main.Serve.class, Main.Plugins.class, Main.ConfigReferenceCommand.class, Main.Key.class, DbCommands.Group.class,
                ProfileCommand.class,
                McpCommand.class, ModelsCommand.class, WebhooksCommand.class,
                dev.caduceus.platform.batch.BatchCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Callable<Integer>, BatchCommand.Parent {
    private final Map<String, String> env;
    private final Path baseHome;

    /** Shown by --help; the option itself is taken off the command line before it is parsed (see {@link #run}). */
    @Option(names = {"-p", "--profile"}, paramLabel = "NAME",
            description = "Run as profile NAME: its own state directory $CADUCEUS_HOME/profiles/NAME (config.yaml, "
                    + ".env, database, key, plugins) and, by default, model id NAME. Also CADUCEUS_PROFILE. "
                    + "Give it before the command: caduceus -p alice serve.")
    String profileForHelp;

    private Main(Map<String, String> env, Path baseHome) {
        this.env = env;
        this.baseHome = baseHome;
    }

    /**
     * First logging, from {@code CADUCEUS_LOG_LEVEL} (an invalid value is a usage error, exit 2, for every
     * command); then the environment: the process's plus the secrets {@code bin/caduceus} handed over in a
     * file ({@link LaunchEnvironment}), which every command reads instead of {@link System#getenv()}.
     */
    public static void main(String[] args) {
        try {
            LogSetup.apply(LogSettings.fromEnvironment(System.getenv())); // the configuration's levels come later (BootSteps)
        } catch (IllegalArgumentException e) {
            System.err.println("caduceus: " + e.getMessage());
            System.exit(2);
            return;
        }
        Map<String, String> env;
        try {
            env = LaunchEnvironment.load(System.getenv(), System.getProperty(LaunchEnvironment.PROPERTY));
        } catch (BootException e) {
            System.err.println("caduceus: " + e.getMessage());
            System.exit(e.exitCode());
            return;
        }
        System.exit(run(env, args));
    }

    /** Runs the command line with the process environment and returns the exit status (for tests). */
    public static int run(String... args) {
        return run(System.getenv(), args);
    }

    /**
     * Runs the command line with {@code env} as the environment and returns the exit status. First
     * the profile ({@code -p NAME} / {@code --profile NAME} before the command, else
     * {@code CADUCEUS_PROFILE}) picks the state directory, then that directory's {@code .env} fills in
     * variables the environment lacks; every command then reads the result.
     */
    static int run(Map<String, String> processEnv, String... args) {
        var env = processEnv;
        var base = Platform.stateDir(env);
        var selected = ProfileOption.take(args);
        if (selected.error() != null) {
            System.err.println("caduceus: " + selected.error());
            return 2;
        }
        args = selected.rest();
        String profile;
        try {
            profile = Profiles.validName(selected.profile()
                    .or(() -> Profiles.fromEnvironment(processEnv)).orElse(Profiles.DEFAULT));
        } catch (IllegalArgumentException e) {
            System.err.println("caduceus: " + e.getMessage());
            return 2;
        }
        boolean profileCommand = args.length > 0 && args[0].equals("profile");
        if (!profileCommand && !Profiles.exists(base, profile)) {
            System.err.println("caduceus: profile '" + profile + "' does not exist (no " + Profiles.home(base, profile)
                    + "); create it with: caduceus profile create " + profile);
            return 2;
        }
        if (!profileCommand) env = Profiles.environment(env, base, profile);
        try {
            env = DotEnv.read(Platform.stateDir(env)).under(env);
        } catch (ConfigException e) {
            System.err.println("caduceus: " + e.getMessage());
            return 2;
        }
        var main = new Main(env, base);
        var command = withDefaultCommand(args);
        var plain = plainServe(command);
        if (plain != null) {
            plain.main = main;
            try {
                return plain.serve(new PrintWriter(new OutputStreamWriter(System.out, System.out.charset()), true));
            } catch (Exception e) {
                System.err.println("caduceus: " + e.getMessage());             // as the handler below
                return e instanceof BootException b ? b.exitCode() : 1;
            }
        }
        var line = new CommandLine(main);
        dev.caduceus.platform.batch.BatchCommand.configure(line.getSubcommands().get("batch"));
        line.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("caduceus: " + e.getMessage());
            return e instanceof BootException b ? b.exitCode() : 1;
        });
        return line.execute(command);
    }

    /**
     * {@code serve} with nothing but its own options, each given once, parsed here rather than by
     * picocli: picocli's classes are Java 5 bytecode, which the JDK's AOT cache cannot hold, so loading,
     * verifying and running them (and building the model of every command) costs ~0.3 s of each start.
     * Anything else (help, version, other commands, an unknown, repeated or valueless option, an
     * {@code @file}) returns null and goes through picocli, which also reports the errors.
     */
    static Serve plainServe(String[] args) {
        if (args.length == 0 || !args[0].equals("serve")) return null;
        var serve = new Serve();
        for (int i = 1; i < args.length; i++) {
            var arg = args[i];
            if (arg.startsWith("@")) return null;                                  // picocli's argument files
            var eq = arg.indexOf('=');
            var name = eq > 0 ? arg.substring(0, eq) : arg;
            String value = eq > 0 ? arg.substring(eq + 1) : null;
            if (name.equals("--lenient")) {
                if (value != null || serve.options.lenient) return null;
                serve.options.lenient = true;
                continue;
            }
            if (!List.of("--host", "--port", "--config").contains(name)) return null;
            if (value == null) {
                if (i + 1 == args.length || args[i + 1].startsWith("-") || args[i + 1].startsWith("@")) return null;
                value = args[++i];
            }
            switch (name) {
                case "--host" -> {
                    if (serve.host != null) return null;
                    serve.host = value;
                }
                case "--port" -> {
                    if (serve.port != null) return null;
                    serve.port = value;
                }
                default -> {
                    if (serve.options.config != null) return null;
                    try {
                        serve.options.config = Path.of(value);
                    } catch (java.nio.file.InvalidPathException e) {
                        return null;
                    }
                }
            }
        }
        return serve;
    }

    private static String[] withDefaultCommand(String[] args) {
        if (args.length == 0) return new String[] {"serve"};
        var first = args[0];
        var topLevel = List.of("-h", "--help", "-V", "--version");
        if (first.startsWith("-") && !topLevel.contains(first)) {
            var withServe = new ArrayList<String>();
            withServe.add("serve");
            withServe.addAll(List.of(args));
            return withServe.toArray(String[]::new);
        }
        return args;
    }

    @Override
    public Integer call() {
        return 0;
    }

    /** The environment commands read: the process's plus the launcher's secrets, the profile's and its .env's. */
    @Override
    public Map<String, String> environment() {
        return env;
    }

    /** {@code $CADUCEUS_HOME} itself, whatever the profile: where profiles live. */
    /** The environment this command runs with (the process's, over the profile's {@code .env}). */
    Map<String, String> env() {
        return env;
    }

    Path baseHome() {
        return baseHome;
    }

    /** Options shared by commands that read the configuration. */
    static final class ConfigOptions {
        @Option(names = "--config", paramLabel = "FILE",
                description = "Configuration file (default: $CADUCEUS_HOME/config.yaml, if present).")
        Path config;

        @Option(names = "--lenient", description = "Skip plugins that fail to load or start instead of stopping.")
        boolean lenient;

        BootOptions toPlatformOptions(List<ConfigLoader.Flag> flags, Map<String, String> env) {
            return new BootOptions(Optional.ofNullable(config), flags, lenient, env, appHome());
        }
    }

    @Command(name = "serve", mixinStandardHelpOptions = true,
            description = {"Start the HTTP server.",
                    "Prints where it listens, which plugins loaded and how to authenticate.",
                    "Stop with Ctrl-C (SIGTERM): running work drains, then plugins stop."})
    static final class Serve implements Callable<Integer> {
        @CommandLine.Mixin ConfigOptions options = new ConfigOptions();

        @Option(names = "--host", paramLabel = "HOST", description = "Bind address (server.host; default 127.0.0.1).")
        String host;

        @Option(names = "--port", paramLabel = "PORT", description = "Port (server.port; default 8642; 0 = any free port).")
        String port;

        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @CommandLine.ParentCommand Main main;

        @Override
        public Integer call() throws Exception {
            return serve(spec.commandLine().getOut());
        }

        /** Runs the server until it is stopped; {@code out} gets the start-up summary. */
        Integer serve(PrintWriter out) throws Exception {
            var flags = new ArrayList<ConfigLoader.Flag>();
            if (host != null) flags.add(new ConfigLoader.Flag("--host", "server.host", host));
            if (port != null) flags.add(new ConfigLoader.Flag("--port", "server.port", port));
            var lock = ServeLock.acquire(Platform.stateDir(main.env));
            try {
                var platform = Platform.start(options.toPlatformOptions(flags, main.env), out);
                Runtime.getRuntime().addShutdownHook(new Thread(platform::close, "caduceus-shutdown"));
                platform.awaitStopped();
                return 0;
            } finally {
                lock.ifPresent(ServeLock::close);
            }
        }
    }

    @Command(name = "plugins", mixinStandardHelpOptions = true,
            description = {"List the plugin jars found, whether each is enabled, and what it contributes.",
                    "Boots the plugins against a scratch database; the server's state is not touched."})
    static final class Plugins implements Callable<Integer> {
        @CommandLine.Mixin ConfigOptions options = new ConfigOptions();

        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @CommandLine.ParentCommand Main main;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            Platform.listPlugins(options.toPlatformOptions(List.of(), main.env), out);
            return 0;
        }
    }

    @Command(name = "config-reference", mixinStandardHelpOptions = true,
            description = {"Print every configuration key (the host's and the enabled plugins') as Markdown:",
                    "type, default, environment variables, what it does (docs/configuration.md is this output).",
                    "Boots the plugins against a scratch database; the server's state is not touched."})
    static final class ConfigReferenceCommand implements Callable<Integer> {
        @CommandLine.Mixin ConfigOptions options = new ConfigOptions();

        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @CommandLine.ParentCommand Main main;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            Platform.printConfigReference(options.toPlatformOptions(List.of(), main.env), out);
            return 0;
        }
    }

    @Command(name = "key", mixinStandardHelpOptions = true,
            description = {"The admin key (API_SERVER_KEY, server.api_key, or the generated one in $CADUCEUS_HOME/api_key,",
                    "which holds only its salted hash) and named keys: one per front-end, job or colleague, each",
                    "a tenant with its own runs, responses, jobs and memory, revocable at any time.",
                    "A key is printed once: when it is generated ('key rotate', 'key add')."},
            subcommands = {Key.Show.class, Key.Rotate.class, KeyCommands.Add.class, KeyCommands.ListKeys.class,
                    KeyCommands.Revoke.class})
    static final class Key implements Callable<Integer> {
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @CommandLine.ParentCommand Main main;

        @Override
        public Integer call() {
            spec.commandLine().usage(spec.commandLine().getOut());
            return 2;
        }

        ApiKeys keys() {
            return new ApiKeys(Platform.stateDir(main.env), new SecureRandom());
        }

        Path home() {
            return Platform.stateDir(main.env);
        }

        /** The configuration (environment and {@code $CADUCEUS_HOME/config.yaml}): which database the keys are in. */
        BootOptions options() {
            return new BootOptions(Optional.empty(), List.of(), false, main.env, appHome());
        }

        @Command(name = "show", mixinStandardHelpOptions = true,
                description = {"Explain why the key cannot be shown: the key file holds only its hash.",
                        "A key file from an older version, in clear text, is replaced by its hash. Exit status 2."})
        static final class Show implements Callable<Integer> {
            @CommandLine.Spec CommandLine.Model.CommandSpec spec;

            @CommandLine.ParentCommand Key key;

            @Override
            public Integer call() {
                var keys = key.keys();
                var err = spec.commandLine().getErr();
                try {
                    if (keys.read().isEmpty()) {
                        err.println("caduceus: no key file at " + keys.keyFile()
                                + "; 'caduceus serve' generates a key at first start and prints it once.");
                        return 2;
                    }
                } catch (ApiKeyException e) {
                    err.println("caduceus: " + e.getMessage());
                    return 2;
                }
                err.println("caduceus: the key cannot be shown: " + keys.keyFile() + " holds only its salted hash,");
                err.println("and the key itself was printed once, when it was generated.");
                err.println("Run 'caduceus key rotate' for a new key (printed once; effective at the next start),");
                err.println("or set your own key with API_SERVER_KEY or server.api_key.");
                return 2;
            }
        }

        @Command(name = "rotate", mixinStandardHelpOptions = true,
                description = "Replace the key with a new random one and print it once (effective at the next start).")
        static final class Rotate implements Callable<Integer> {
            @CommandLine.Spec CommandLine.Model.CommandSpec spec;

            @CommandLine.ParentCommand Key key;

            @Override
            public Integer call() {
                var keys = key.keys();
                var generated = keys.generate();
                var out = spec.commandLine().getOut();
                out.println("Wrote the hash of a new API key to " + keys.keyFile()
                        + " (effective at the next start). The key, shown only now:");
                out.println("    " + generated.value());
                if (key.main.env.get("API_SERVER_KEY") != null && !key.main.env.get("API_SERVER_KEY").isBlank())
                    out.println("Note: API_SERVER_KEY is set, and a configured key wins over the key file.");
                return 0;
            }
        }
    }

    /** The installation directory ({@code bin/..}), passed by the launcher; null when run from a build. */
    static Path appHome() {
        var home = System.getProperty("caduceus.app.home");
        return home == null ? null : Path.of(home);
    }

    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"Caduceus " + Version.CURRENT};
        }
    }
}
