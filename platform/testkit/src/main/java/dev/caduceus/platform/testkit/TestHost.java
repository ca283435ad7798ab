package dev.caduceus.platform.testkit;

import dev.caduceus.platform.host.boot.BootSteps;
import dev.caduceus.platform.host.boot.BootOptions;
import static java.util.Objects.requireNonNull;

import dev.caduceus.platform.host.auth.ApiKeyException;
import dev.caduceus.platform.host.auth.KeyPolicy;
import dev.caduceus.platform.host.auth.NamedKeys;
import dev.caduceus.platform.host.boot.BootException;
import dev.caduceus.platform.server.Platform;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.model.Models;
import dev.caduceus.support.services.ToolCalls;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The real Caduceus host in-process, for plugin tests over HTTP (what Trino's QueryRunner and Helidon's
 * test server are to theirs): configuration, SQLite, PF4J loading real plugin jars, the run service
 * and journal, Jetty on an ephemeral loopback port, all under a temporary {@code $CADUCEUS_HOME}.
 * Nothing is faked; the model is whatever {@link Builder#model} points at, usually a
 * {@link ScriptedUpstream}.
 *
 * <pre>{@code
 * upstream = ScriptedUpstream.start();
 * host = TestHost.builder().plugins("endpoint-runs", "provider-openai").model(upstream).start();
 * var created = host.http().post("/v1/runs", "{\"input\":\"hi\"}");
 * }</pre>
 *
 * <p>Plugins are named by id and found on the test class path (the module under test's
 * {@code target/classes}, and the test-scoped dependencies on other plugin modules); each becomes a jar
 * in the host's {@code plugins/} folder ({@link PluginJars}). The environment the host sees is built
 * here, not inherited: {@code PATH}, the locale and {@code CADUCEUS_LOG_LEVEL} from the JVM's, the rest from the
 * builder.
 *
 * <p>Lifecycle: {@link Builder#start()} returns once the server listens; {@link #close()} drains and
 * stops it and deletes its directories. Share one host per test class where tests do not interfere.
 * Thread-safe. This class and {@link PluginJars} are the testkit's only contact with the platform's
 * internals ({@code Platform.start}, its options and {@code BootException}; {@code Platform.toolCalls} behind
 * {@link #callTool}, {@code Platform.models} behind {@link #models}, {@code Platform.deployment} and {@code Platform.services} behind {@link #deployment} and
 * {@link #services}, {@code Platform.listPlugins} and {@code Platform.printConfigReference} behind
 * {@link #pluginListing} and {@link #configReference}; the outbound client's name lookup behind
 * {@link Builder#nameLookup}; the key store behind {@link #addKey}).
 */
public final class TestHost implements AutoCloseable {
    /** The API key a host presents and accepts unless the builder sets another. */
    public static final String DEFAULT_KEY = "testhost-key-long-enough-to-pass";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> INHERITED = List.of("PATH", "LANG", "LC_ALL", "TZ", "CADUCEUS_LOG_LEVEL");

    private final Platform platform;
    private final Path root;
    private final Path home;
    private final Path workspace;
    private final BootOptions options;
    private final String apiKey;
    private final StringWriter output;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final HostClient client;

    private TestHost(Platform platform, BootOptions options, Path root, Path home, Path workspace, String apiKey,
                     StringWriter output) {
        this.options = options;
        this.platform = platform;
        this.root = root;
        this.home = home;
        this.workspace = workspace;
        this.apiKey = apiKey;
        this.output = output;
        this.client = new HostClient(http, baseUrl(), apiKey);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@code http://127.0.0.1:PORT}. */
    public URI baseUrl() {
        return platform.uri();
    }

    /** The admin key ({@code API_SERVER_KEY}). */
    public String apiKey() {
        return apiKey;
    }

    /** A client presenting {@link #apiKey()}. */
    public HostClient http() {
        return client;
    }

    /** {@code $CADUCEUS_HOME}: the database, the key file, plugin data directories. */
    public Path home() {
        return home;
    }

    /** {@code tools.workspace}: where the tools read, write and run commands (created at boot). */
    public Path workspace() {
        return workspace;
    }

    /**
     * The tools a turn of the admin key asking for {@code toolsets} is offered (none given:
     * {@code agent.toolsets}), by name: the loaded plugins' real {@link Tool}s, resolved and filtered
     * by the host's own selection, as a turn or an MCP client sees them.
     */
    public List<Tool> tools(String... toolsets) {
        return platform.toolCalls().offered(Caller.ADMIN_CALLER, List.of(toolsets));
    }

    /**
     * What this host serves, as its plugins read it ({@code ctx.deployment()}): every plugin jar and what
     * it contributed ({@code plugins()}: {@code kinds} such as {@code tools}, {@code toolsets},
     * {@code services}), the routes, every tool, the toolsets as contributed ({@code toolsets()}: tools,
     * includes, description) and what each resolves to ({@code resolve}).
     */
    public dev.caduceus.spi.Deployment deployment() {
        return platform.deployment();
    }

    /**
     * Runs the scheduled task {@code owner/name} now (e.g. {@code endpoint-jobs/jobs-tick}, the plugin's id
     * then the name it gave {@code ctx.scheduler()}) and returns when that run has ended: the real task on
     * the host's scheduler, a period early. With a {@link Builder#clock} that a test moves, a periodic task
     * is checked without waiting its period. Unknown names fail listing the scheduled ones.
     */
    public void runScheduledTask(String name) throws InterruptedException {
        platform.runScheduledTask(name);
    }

    /**
     * The services the loaded plugins offer each other whose interface has {@code type}'s name, in start
     * order: the plugins' real objects as another plugin finds them with {@code ctx.services(type)}
     * (the host carries arguments and results across when the plugin bundles its own copy of
     * {@code type}, as shipped plugins do). For a plugin whose contribution is a service
     * ({@code toolsets-hermes}' {@code BatchCatalog}) and no route or tool shows it whole.
     */
    public <T> List<T> services(Class<T> type) {
        return platform.services(type);
    }

    /**
     * Calls {@code tool} with {@code arguments} (a JSON object) as the admin key, in session
     * {@code session}, and returns what the model would see. The call goes through the host's real
     * dispatcher, as endpoint-mcp's {@code tools/call} does ({@link ToolCalls}): arguments coerced and
     * checked, the plugin's class loader, the cap and redaction, a thrown exception an error result, a
     * real {@code ToolContext} (this call's own run id, the session scoped to the key, the deployment's
     * workspace, no approval channel). The same {@code session} reaches the same session state (a
     * terminal's processes, memory).
     *
     * @throws IllegalArgumentException when {@code arguments} is not a JSON object
     */
    public ToolResult callTool(String session, String tool, String arguments) throws InterruptedException {
        return callTool(new ToolCalls.Request(Caller.ADMIN_CALLER, session, List.of(), tool, object(arguments), null));
    }

    /**
     * The host's plain model calls, the {@link Models} a plugin gets as {@code ctx.models()}: the model
     * provider a plugin contributed (from its real jar, class-loader bound), configured from this host's
     * {@code model.*} settings and calling out through the host's outbound client, {@code model.stream}
     * applied and error messages redacted as for any plugin. For testing a provider plugin where no
     * endpoint plugin is loaded to drive a turn: the request is a value the test builds, what the provider
     * sends is observed at the upstream ({@link ScriptedUpstream}). Not {@link Models#available()} in proxy
     * mode, without a provider plugin, or when {@code model.*} is not configured.
     */
    public Models models() {
        return platform.models();
    }

    /** One direct tool call as {@code request} says: another caller (a named key), toolsets, a cancellation. */
    public ToolResult callTool(ToolCalls.Request request) throws InterruptedException {
        return platform.toolCalls().call(request);
    }

    private static ObjectNode object(String json) {
        try {
            if (JSON.readTree(json) instanceof ObjectNode node) return node;
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + json, e);
        }
        throw new IllegalArgumentException("not a JSON object: " + json);
    }

    /**
     * Adds the named key {@code name} as an operator does with {@code caduceus key add NAME
     * [--families F,…]}: through the platform's key store in this host's database (its
     * {@code database.url} when set, so on PostgreSQL every node sharing it knows the key), which the
     * running host reads again from its next request on ({@code keys.stamp}; another node within the
     * stamp's second). Returns the {@code cdk_…} key,
     * shown only now; present it with {@code http().withKey(key)}. Requests with it are the tenant
     * {@code name}'s. No {@code families}: every family.
     *
     * @throws IllegalArgumentException for a name the CLI refuses (reserved, malformed, taken) or an unknown family
     */
    public String addKey(String name, String... families) {
        return addKey(name, KeyPolicy.parse(families.length == 0 ? null : String.join(",", families), null, null, null, null));
    }

    /**
     * As {@link #addKey(String, String...)} with {@code --toolsets T,…} too: the key's agent turns and
     * direct tool calls (MCP) offer only {@code toolsets}.
     */
    public String addKeyWithToolsets(String name, List<String> toolsets, String... families) {
        return addKey(name, KeyPolicy.parse(families.length == 0 ? null : String.join(",", families), null, null,
                String.join(",", toolsets), null));
    }

    /** As {@link #addKey(String, String...)} with a whole policy (as `caduceus key add` builds it from its options). */
    public String addKey(String name, KeyPolicy policy) {
        try (var db = BootSteps.openStateDatabase(options)) { // database.url when set, as the CLI: every node's keys
            return new NamedKeys(db, new SecureRandom(), Clock.systemUTC()).add(name, policy).key();
        } catch (BootException e) {
            throw new IllegalStateException("TestHost could not open its key store: " + e.getMessage(), e);
        } catch (ApiKeyException e) {
            throw new IllegalArgumentException("caduceus key add " + name + ": " + e.getMessage(), e);
        }
    }

    /**
     * What {@code caduceus plugins} prints for this host's plugins and configuration: each jar, its
     * routes and tools, and why a tool is unavailable. Boots the plugins once more against a scratch
     * database, as the command does; the running host is untouched.
     */
    public String pluginListing() {
        var out = new StringWriter();
        try {
            Platform.listPlugins(options, new PrintWriter(out, true));
        } catch (BootException e) {
            throw new IllegalStateException("caduceus plugins failed: " + e.getMessage(), e);
        }
        return out.toString();
    }

    /**
     * What {@code caduceus config-reference} prints for this host's plugins and configuration: one
     * Markdown table per section, a row per key (key, type, default, environment variables, the plugin
     * or {@code host} that declares it, description). Boots the plugins once more against a scratch
     * database, as the command does; the running host is untouched.
     */
    public String configReference() {
        var out = new StringWriter();
        try {
            Platform.printConfigReference(options, new PrintWriter(out, true));
        } catch (BootException e) {
            throw new IllegalStateException("caduceus config-reference failed: " + e.getMessage(), e);
        }
        return out.toString();
    }

    /**
     * The {@link #configReference()} rows plugin {@code pluginId} declares: key to [type, default, environment
     * variables, description], in the reference's order.
     */
    public Map<String, List<String>> configReferenceRows(String pluginId) {
        var rows = new LinkedHashMap<String, List<String>>();
        for (var line : configReference().lines().toList()) {
            if (!line.startsWith("| `")) continue;
            var cells = line.substring(2, line.length() - 2).split(" \\| ", -1); // an escaped \| is not " | "
            if (!cells[4].equals(pluginId)) continue;
            rows.put(unquote(cells[0]), List.of(cells[1], unquote(cells[2]), cells[3], cells[5]));
        }
        return rows;
    }

    private static String unquote(String cell) {
        return cell.length() >= 2 && cell.startsWith("`") && cell.endsWith("`") ? cell.substring(1, cell.length() - 1) : cell;
    }

    /**
     * The routes plugin {@code pluginId} serves, as {@link #pluginListing()} lists them:
     * {@code "METHOD TEMPLATE"} to the route's capability name ({@code ""} for an unnamed route), in
     * registration order.
     */
    public Map<String, String> routesOf(String pluginId) {
        var routes = new LinkedHashMap<String, String>();
        boolean inPlugin = false;
        for (var line : pluginListing().lines().toList()) {
            if (!line.startsWith(" ")) {
                inPlugin = line.startsWith(pluginId + " ");
                continue;
            }
            var entry = line.strip();
            if (!inPlugin || !entry.startsWith("route ")) continue;
            var route = entry.substring("route ".length()).strip();
            int named = route.indexOf("  (");
            if (named < 0) routes.put(route, "");
            else routes.put(route.substring(0, named), route.substring(named + 3, route.length() - 1));
        }
        return routes;
    }

    /** What the host printed at start-up (the banner: address, plugins, routes). */
    public String output() {
        synchronized (output) {
            return output.toString();
        }
    }

    /**
     * The answer a request gets while this host drains: sends {@code busyBody} to {@code path} so that a
     * run waits at the model in {@code held} (already enqueued on the host's upstream), closes the host
     * with {@code close} on another thread, and returns the first answer to {@code body} that says 503.
     * The host is closed when this returns. Uses a client of its own: the host's closes with the host.
     */
    public java.net.http.HttpResponse<String> answerWhileDraining(HeldTurn held, String path, String busyBody,
                                                                  String body, Runnable close) throws Exception {
        try (var client = HttpClient.newHttpClient()) {
            var busy = client.sendAsync(post(path, busyBody), java.net.http.HttpResponse.BodyHandlers.ofString());
            held.awaitArrival(); // a run in flight keeps the host draining
            var closing = Thread.ofVirtual().start(close);
            try {
                return Eventually.await(Duration.ofSeconds(10), "the host drains",
                        () -> client.send(post(path, body), java.net.http.HttpResponse.BodyHandlers.ofString()),
                        r -> r.statusCode() == 503);
            } finally {
                held.release();
                busy.handle((r, e) -> null).join();
                closing.join();
            }
        }
    }

    private java.net.http.HttpRequest post(String path, String body) {
        return java.net.http.HttpRequest.newBuilder(baseUrl().resolve(path))
                .header("Authorization", "Bearer " + apiKey()).header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /**
     * Stops the host (graceful drain, as on SIGTERM) and deletes its directories. The client's
     * connections are closed first: Jetty's graceful stop waits for open connections, and idle
     * keep-alive ones would hold it to the drain timeout. Idempotent.
     */
    @Override
    public void close() {
        try {
            http.shutdownNow();
            platform.close();
        } finally {
            delete(root);
        }
    }

    /**
     * A name lookup for {@link Builder#nameLookup}: the addresses {@code host} resolves to, or
     * {@link java.net.UnknownHostException}; it may block (a DNS server that does not answer) and is
     * interrupted when the host closes. Called on the outbound client's threads, concurrently.
     */
    @FunctionalInterface
    public interface NameLookup {
        java.net.InetAddress[] all(String host) throws java.net.UnknownHostException;
    }

    /**
     * What to boot. Not thread-safe; each {@link #start()} boots a new host in new directories.
     */
    public static final class Builder {
        private final Map<String, Optional<Path>> plugins = new LinkedHashMap<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private String configYaml;
        private Path configFile;
        private String apiKey = DEFAULT_KEY;
        private Path home;
        private Clock clock = Clock.systemUTC();
        private NameLookup nameLookup;

        private Builder() {}

        /** Plugins by id, found on the class path ({@code endpoint-runs}, {@code provider-openai}, …). */
        public Builder plugins(String... ids) {
            for (var id : ids) plugins.put(requireNonNull(id, "id"), Optional.empty());
            return this;
        }

        /** A plugin from {@code classesOrJar}: a classes directory (a jar is built) or a plugin jar. */
        public Builder plugin(String id, Path classesOrJar) {
            plugins.put(requireNonNull(id, "id"), Optional.of(classesOrJar.toAbsolutePath()));
            return this;
        }

        /**
         * The model: {@code upstream}'s base URL and model id, the start-up model probe off. Needs the
         * {@code provider-openai} plugin.
         */
        public Builder model(ScriptedUpstream upstream) {
            env.put("OPENAI_BASE_URL", upstream.baseUrl());
            env.put("CADUCEUS_MODEL", ScriptedUpstream.MODEL);
            env.put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
            return this;
        }

        /**
         * One environment variable as the host reads it: {@code API_SERVER_*}, or
         * {@code CADUCEUS__SECTION__KEY} for any configuration key
         * ({@code CADUCEUS__RUNS__IDEMPOTENCY_RETENTION_HOURS}).
         */
        public Builder env(String name, String value) {
            env.put(requireNonNull(name, "name"), requireNonNull(value, "value"));
            return this;
        }

        /** {@code $CADUCEUS_HOME/config.yaml}, written before the boot. */
        public Builder configYaml(String yaml) {
            configYaml = requireNonNull(yaml, "yaml");
            return this;
        }

        /**
         * {@code --config FILE}: a configuration file outside {@code $CADUCEUS_HOME}, read instead of
         * {@code config.yaml} there (and protected from the tools as the state directory is).
         */
        public Builder configFile(Path file) {
            configFile = requireNonNull(file, "file").toAbsolutePath();
            return this;
        }

        /**
         * Boots on {@code existing} as {@code $CADUCEUS_HOME} instead of a new one: another host's
         * {@link TestHost#home()}, closed (a restart) or still running (a second process on the same
         * state, as when one was killed and the next started). {@link TestHost#close()} leaves a home
         * it did not create.
         */
        public Builder home(Path existing) {
            home = requireNonNull(existing, "existing").toAbsolutePath();
            return this;
        }

        /**
         * The platform's clock instead of the system's: what plugins read as {@code ctx.clock()}, and
         * what stamps runs and keys. With a {@link ManualClock} a test moves time by hand (a job comes
         * due when the clock is advanced, and the scheduler's next tick fires it); the host's periodic
         * tasks still tick in real time. Off by default.
         */
        public Builder clock(Clock clock) {
            this.clock = requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How the host's outbound client ({@code ctx.outbound()}, what web_extract and the providers call
         * out with) resolves names, instead of the system resolver: a test scripts the answers a real DNS
         * server could give and the machine's cannot (a public-looking name that answers loopback, a name
         * that answers differently per lookup, a lookup that never answers). The client still applies its
         * egress policy to every address this answers, on every connection; nothing else of the host
         * changes. Literal addresses are looked up here too. Off by default.
         */
        public Builder nameLookup(NameLookup lookup) {
            this.nameLookup = requireNonNull(lookup, "lookup");
            return this;
        }

        /** The admin key; default {@link #DEFAULT_KEY}. */
        public Builder apiKey(String key) {
            apiKey = requireNonNull(key, "key");
            return this;
        }

        /** Builds the plugin jars, boots the host, and returns once it listens. */
        public TestHost start() {
            Path root = null;
            try {
                root = Files.createTempDirectory("caduceus-testhost");
                var home = this.home != null ? this.home : Files.createDirectories(root.resolve("home"));
                var pluginDir = Files.createDirectories(root.resolve("app").resolve("plugins"));
                for (var plugin : plugins.entrySet()) {
                    var id = plugin.getKey();
                    PluginJars.write(id, plugin.getValue().orElseGet(() -> PluginJars.locate(id)),
                            pluginDir.resolve(id + ".jar"));
                }
                if (configYaml != null) Files.writeString(home.resolve("config.yaml"), configYaml);
                var environment = new HashMap<String, String>();
                for (var name : INHERITED) {
                    var value = System.getenv(name);
                    if (value != null) environment.put(name, value);
                }
                environment.put("HOME", Files.createDirectories(root.resolve("user")).toString());
                environment.put("CADUCEUS_HOME", home.toString());
                environment.put("API_SERVER_HOST", "127.0.0.1");
                environment.put("API_SERVER_PORT", "0");
                environment.put("API_SERVER_KEY", apiKey);
                environment.put("CADUCEUS__TOOLS__WORKSPACE", root.resolve("workspace").toString());
                environment.putAll(env);
                var workspace = Path.of(environment.get("CADUCEUS__TOOLS__WORKSPACE"));
                var output = new StringWriter();
                var lookup = nameLookup;
                var options = lookup == null
                        ? new BootOptions(Optional.ofNullable(configFile), List.of(), false, environment,
                                root.resolve("app"), clock)
                        : new BootOptions(Optional.ofNullable(configFile), List.of(), false, environment,
                                root.resolve("app"), clock, lookup::all);
                Platform platform;
                synchronized (output) {
                    platform = Platform.start(options, new PrintWriter(output, true));
                }
                return new TestHost(platform, options, root, home, workspace, apiKey, output);
            } catch (BootException e) {
                delete(root);
                throw new IllegalStateException("TestHost failed to boot: " + e.getMessage(), e);
            } catch (IOException e) {
                delete(root);
                throw new UncheckedIOException("TestHost could not prepare its directories", e);
            } catch (RuntimeException | Error e) {
                delete(root);
                throw e;
            }
        }
    }

    private static void delete(Path dir) {
        if (dir == null) return;
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // temporary space; the OS reclaims it
        }
    }
}
