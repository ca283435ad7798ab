package dev.caduceus.platform.host.config;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.config.GlobalConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The typed, validated configuration the platform runs with. Secrets are
 * {@link Secret}s, so {@code toString()} is safe to log. {@link #tree()} is the merged raw tree for
 * plugin subtrees and free-form sections. Immutable.
 *
 * @param home       the state directory ({@code $CADUCEUS_HOME})
 * @param configFile the file actually read, if any
 * @param workspace  {@code tools.workspace}
 * @param dotenv     {@code $CADUCEUS_HOME/.env} as read (its values are secrets: {@link #secretValues})
 */
public record PlatformConfig(Path home, Optional<Path> configFile, Server server, Model model, Agent agent,
                             Approvals approvals, Path workspace, Gateway gateway,
                             Retention retention, Resume resume, Plugins plugins, ConfigTree tree, DotEnv dotenv,
                             Observability observability, Storage storage, Webhooks webhooks) {
    /** The upstream used when only {@code model.api_key} is set. */
    public static final String OPENAI_BASE_URL = "https://api.openai.com/v1";

    public PlatformConfig {
        requireNonNull(home, "home");
        requireNonNull(configFile, "configFile");
        requireNonNull(server, "server");
        requireNonNull(model, "model");
        requireNonNull(agent, "agent");
        requireNonNull(approvals, "approvals");
        requireNonNull(webhooks, "webhooks");
        requireNonNull(workspace, "workspace");
        requireNonNull(gateway, "gateway");
        requireNonNull(retention, "retention");
        requireNonNull(observability, "observability");
        requireNonNull(plugins, "plugins");
        requireNonNull(tree, "tree");
        requireNonNull(dotenv, "dotenv");
        requireNonNull(storage, "storage");
    }

    /**
     * {@code database.*}: where the store is. No URL: the embedded SQLite file {@code $CADUCEUS_HOME/caduceus.db}
     * (one node). A URL: PostgreSQL, which several nodes can share.
     *
     * @param url      {@code database.url} / {@code CADUCEUS_DATABASE_URL} (a secret: it may hold a password)
     * @param user     {@code database.user}, over the URL's
     * @param password {@code database.password}, over the URL's
     * @param poolSize connections per pool (one pool for writes, one for reads)
     */
    public record Storage(Optional<Secret> url, Optional<String> user, Optional<Secret> password, int poolSize) {
        public Storage {
            requireNonNull(url, "url");
            requireNonNull(user, "user");
            requireNonNull(password, "password");
        }

        /** The embedded default. */
        public static Storage embedded() {
            return new Storage(Optional.empty(), Optional.empty(), Optional.empty(), 8);
        }
    }

    /**
     * {@code webhooks.*}: who is told when a run, job or background response ends or waits.
     *
     * @param secrets           {@code webhooks.secret}: the signing keys (several while rotating), raw bytes
     * @param endpoints         {@code webhooks.endpoints}
     * @param allowPrivateHosts hosts a per-request webhook may name although they are not public
     * @param retryInitial      the first retry's wait; doubled (with jitter) for each next one
     * @param retryMax          the longest wait between two attempts
     * @param retryFor          how long a delivery is retried before it counts as failed
     */
    public record Webhooks(List<Secret> secrets, List<Endpoint> endpoints, List<String> allowPrivateHosts,
                           java.time.Duration retryInitial, java.time.Duration retryMax, java.time.Duration retryFor) {
        private static final String PREFIX = "whsec_";

        public Webhooks {
            secrets = List.copyOf(secrets);
            endpoints = List.copyOf(endpoints);
            allowPrivateHosts = List.copyOf(allowPrivateHosts);
        }

        /** None configured. */
        public static Webhooks none() {
            return new Webhooks(List.of(), List.of(), List.of(), java.time.Duration.ofSeconds(5),
                    java.time.Duration.ofHours(1), java.time.Duration.ofHours(24));
        }

        /**
         * One endpoint of {@code webhooks.endpoints}.
         *
         * @param events  the event types it is sent; empty: all
         * @param secrets its signing keys ({@code secret}, else {@code webhooks.secret}); empty: unsigned (only
         *                a {@code hooks.outbound} entry without a secret, as Hermes sends it)
         * @param hermes  from {@code hooks.outbound}: also signed Hermes' way ({@code X-Hermes-Signature-256})
         * @param timeout one attempt's limit (10 s; a {@code hooks.outbound} entry's {@code timeout} may shorten it)
         */
        public record Endpoint(java.net.URI url, List<String> events, List<Secret> secrets, boolean allowPrivate,
                               boolean hermes, java.time.Duration timeout) {
            public Endpoint {
                requireNonNull(url, "url");
                requireNonNull(timeout, "timeout");
                events = List.copyOf(events);
                secrets = List.copyOf(secrets);
            }

            /** One of {@code webhooks.endpoints}: Standard Webhooks only, 10 s. */
            public Endpoint(java.net.URI url, List<String> events, List<Secret> secrets, boolean allowPrivate) {
                this(url, events, secrets, allowPrivate, false, HermesHooks.MAX_TIMEOUT);
            }

            public boolean wants(String event) {
                return events.isEmpty() || events.contains(event);
            }
        }

        /**
         * The Standard Webhooks secrets in {@code text} (separated by spaces): each {@code whsec_} and the base64
         * of 24 to 64 bytes; a malformed one is a ConfigException naming {@code key} and its file. Each comes
         * back as the base64 text after the prefix, in a {@link Secret}.
         */
        static List<Secret> secrets(String key, String text, ConfigTree tree) {
            var out = new java.util.ArrayList<Secret>();
            for (var part : text.trim().split("\\s+")) {
                if (part.isEmpty()) continue;
                byte[] bytes = null;
                if (part.startsWith(PREFIX)) {
                    try {
                        bytes = java.util.Base64.getDecoder().decode(part.substring(PREFIX.length()));
                    } catch (IllegalArgumentException e) {
                        bytes = null;
                    }
                }
                if (bytes == null || bytes.length < 24 || bytes.length > 64)
                    throw new Values(key, com.fasterxml.jackson.databind.node.TextNode.valueOf(part), tree.source(key), true)
                            .invalid("is not a Standard Webhooks secret: whsec_ and the base64 of 24 to 64 random bytes "
                                    + "(e.g. whsec_$(head -c 32 /dev/urandom | base64))");
                out.add(new Secret(part.substring(PREFIX.length())));
            }
            return out;
        }
    }

    /** {@code server.*}; {@code port} 0 means a random free port. */
    public record Server(String host, int port, Optional<Secret> apiKey, List<String> corsOrigins, String modelName,
                         long maxBodyBytes, int maxConcurrentRuns, int sseKeepaliveSeconds, int drainTimeoutSeconds,
                         int idleTimeoutSeconds, int headerTimeoutSeconds, int maxIdleConnectionsPerClient,
                         int bodyMemoryPercent, int bodyMinRate, int bodyGraceSeconds) {
        public Server {
            requireNonNull(host, "host");
            requireNonNull(apiKey, "apiKey");
            corsOrigins = List.copyOf(corsOrigins);
            requireNonNull(modelName, "modelName");
        }
    }

    /**
     * {@code model.*}; routes stay in the raw tree ({@code tree().node("model.routes")}), and so does
     * {@code model.housekeeping_model}, which the chat plugin reads from its {@code model} section.
     */
    public record Model(Optional<String> baseUrl, Optional<Secret> apiKey, Optional<String> name,
                        int timeoutSeconds, boolean healthProbe, boolean directModelRequests,
                        Optional<Integer> maxTokens, boolean stream, boolean echoReasoning,
                        Optional<com.fasterxml.jackson.databind.node.ObjectNode> extraBody) {
        public Model {
            requireNonNull(baseUrl, "baseUrl");
            requireNonNull(apiKey, "apiKey");
            requireNonNull(name, "name");
            requireNonNull(maxTokens, "maxTokens");
            requireNonNull(extraBody, "extraBody");
        }

        /** True when {@code model.name} is set and {@code model.base_url} or {@code model.api_key} is. */
        public boolean configured() {
            return name.isPresent() && (baseUrl.isPresent() || apiKey.isPresent());
        }

        /** {@code model.name} when the model is {@link #configured()}, else null. */
        public String configuredName() {
            return configured() ? name.get() : null;
        }
    }

    /** {@code agent.*}; {@code runtime} is {@code auto}, {@code local} or a plugin runtime's id. */
    public record Agent(List<String> toolsets, int maxIterations, String runtime, int maxParallelTools,
                        Optional<String> identityFile) {
        public Agent {
            toolsets = List.copyOf(toolsets);
            requireNonNull(runtime, "runtime");
        }
    }

    /** {@code approvals.timeout}: how long an approval waits ({@code approvals.mode} is the terminal plugin's). */
    public record Approvals(int timeoutSeconds) {
        public Approvals {
            if (timeoutSeconds < 1) throw new IllegalArgumentException("timeoutSeconds must be >= 1");
        }
    }

    /** {@code gateway.*}: proxy mode is on when {@code proxyUrl} is set. */
    public record Gateway(Optional<String> proxyUrl, Optional<Secret> proxyKey, int proxyReadTimeoutSeconds) {
        public Gateway {
            requireNonNull(proxyUrl, "proxyUrl");
            requireNonNull(proxyKey, "proxyKey");
        }
    }

    /**
     * Durable runs whose server stopped while they were live ({@code runs.resume}, {@code runs.max_resumes},
     * {@code runs.resume_window}): resumed, at most {@code maxResumes} times each, when they started less than
     * {@code window} ago.
     */
    public record Resume(boolean enabled, int maxResumes, java.time.Duration window) {}

    /** How long the host keeps runs, run idempotency keys and session transcripts. */
    public record Retention(int runsRetentionDays, int runsIdempotencyRetentionHours, int sessionsRetentionDays) {}

    /**
     * What operators see: {@code GET /metrics} served ({@code metrics.enabled}) and open without a key
     * ({@code metrics.public}), and the request log ({@code logging.requests}).
     */
    public record Observability(boolean metricsEnabled, boolean metricsPublic, boolean requestLog) {}

    /** {@code plugins.*}: extra jar folder, allow-list (if non-empty) and deny-list of plugin ids. */
    public record Plugins(Path dir, List<String> enabled, List<String> disabled) {
        public Plugins {
            requireNonNull(dir, "dir");
            enabled = List.copyOf(enabled);
            disabled = List.copyOf(disabled);
        }
    }

    /** Where a key's value came from: a file path, {@code environment variable X}, {@code flag --x} or {@code default}. */
    public String source(String key) {
        return tree.source(key);
    }

    /** The {@code plugins.<id>} subtree as the plugin sees it; a new read tracker per call. */
    public PluginConfigImpl pluginConfig(String pluginId) {
        return new PluginConfigImpl(pluginId, tree);
    }

    /**
     * Every secret value in the configuration, in clear, for the tool-output redactor: the keys the
     * schema marks secret ({@code server.api_key}, {@code model.api_key}, {@code gateway.proxy_key}) and
     * every other leaf whose last name segment looks like a credential ({@code *key}, {@code *token},
     * {@code *secret}, {@code *password}), which covers route keys ({@code model.routes.*.api_key}),
     * tool backend keys ({@code tools.web.search.tavily.api_key}) and plugin settings
     * ({@code plugins.<id>.*}). List leaves contribute each element.
     */
    /**
     * {@code server.enabled} ({@code API_SERVER_ENABLED}, the seed's {@code gateway.api_server.enabled}):
     * false means {@code serve} does not start; {@link #serverEnabledSource} says who decided.
     */
    public boolean serverEnabled() {
        return tree.node("server.enabled")
                .map(n -> new Values("server.enabled", n, tree.source("server.enabled"), false).bool())
                .orElse(true);
    }

    /** Where {@code server.enabled} was set ({@code default} when it was not). */
    public String serverEnabledSource() {
        return tree.source("server.enabled");
    }

    /** The values of fields that look like credentials anywhere inside {@code node}'s mappings. */
    private static void secretFields(com.fasterxml.jackson.databind.JsonNode node, java.util.Set<String> values) {
        if (node.isArray()) node.forEach(e -> secretFields(e, values));
        else if (node.isObject()) node.properties().forEach(field -> {
            if (field.getValue().isValueNode() && PluginConfigImpl.looksSecret(field.getKey())) values.add(field.getValue().asText());
            else secretFields(field.getValue(), values);
        });
    }

    public List<String> secretValues() {
        var values = new java.util.LinkedHashSet<String>();
        for (var key : tree.leafKeys()) {
            var last = key.substring(key.lastIndexOf('.') + 1);
            if (!ConfigKeys.isSecret(key) && !PluginConfigImpl.looksSecret(last)) continue;
            tree.node(key).ifPresent(node -> {
                if (node.isValueNode()) values.add(node.asText());
                else if (node.isArray()) node.forEach(e -> { if (e.isValueNode()) values.add(e.asText()); });
            });
        }
        for (var key : tree.leafKeys()) // lists of mappings (model.deployments, a route's deployments): their secret fields
            tree.node(key).filter(com.fasterxml.jackson.databind.JsonNode::isArray).ifPresent(list -> secretFields(list, values));
        values.addAll(dotenv.values().values()); // every value of .env counts as a secret
        server.apiKey().map(Secret::reveal).ifPresent(values::add);
        model.apiKey().map(Secret::reveal).ifPresent(values::add);
        gateway.proxyKey().map(Secret::reveal).ifPresent(values::add);
        // the database URL, and its password on its own (a command could print just that part of it)
        storage.password().map(Secret::reveal).ifPresent(values::add);
        storage.url().map(Secret::reveal).ifPresent(url -> {
            values.add(url);
            try {
                dev.caduceus.platform.host.store.PostgresTarget.parse(url, Optional.empty(), Optional.empty()).password()
                        .ifPresent(values::add);
            } catch (IllegalArgumentException e) {
                // a malformed URL stops the boot with its own message; the whole URL is masked meanwhile
            }
        });
        return List.copyOf(values);
    }

    /** The documented globals as plugins see them. */
    public GlobalConfig global(String version) {
        return new GlobalConfig(server.modelName(), home, workspace, version, server.maxConcurrentRuns(),
                server.sseKeepaliveSeconds(), agent.toolsets(), agent.maxIterations(),
                model.directModelRequests(), protectedPaths());
    }

    /**
     * {@code $CADUCEUS_HOME} and the configuration file actually read, where it lies elsewhere. A
     * profile's home is {@code <base>/profiles/NAME}: then the base's own state (its key file,
     * database, {@code .env}, config, …) and every other profile's directory and workspace are the
     * server's too, and protected as well; only this profile's workspace, which lies among them, is
     * not. (Paths that exist at start; a profile created later is out of the sandbox anyway.)
     */
    List<Path> protectedPaths() {
        var paths = new java.util.ArrayList<Path>(List.of(home));
        configFile.ifPresent(paths::add);
        var profiles = home.toAbsolutePath().normalize().getParent();
        if (profiles != null && profiles.getFileName() != null
                && profiles.getFileName().toString().equals(Profiles.DIRECTORY) && profiles.getParent() != null) {
            var own = new java.util.HashSet<>(List.of(home.toAbsolutePath().normalize(), defaultWorkspace(home),
                    workspace.toAbsolutePath().normalize()));
            addChildren(profiles.getParent(), java.util.Set.of(profiles), paths);
            addChildren(profiles, own, paths);
        }
        return paths;
    }

    private static void addChildren(Path dir, java.util.Set<Path> except, List<Path> into) {
        try (var children = java.nio.file.Files.list(dir)) {
            children.map(p -> p.toAbsolutePath().normalize()).filter(p -> !except.contains(p)).sorted().forEach(into::add);
        } catch (java.io.IOException e) {
            // nothing there to protect
        }
    }

    /**
     * The default {@code tools.workspace}: a sibling of the state directory, {@code <home>-workspace}
     * ({@code ~/.caduceus-workspace} for the default home), so that terminal commands started there do
     * not have the key file, the config and the database one {@code ..} away.
     */
    public static Path defaultWorkspace(Path home) {
        var normalized = home.toAbsolutePath().normalize();
        var name = normalized.getFileName();
        return name == null ? normalized.resolve("workspace") : normalized.resolveSibling(name + "-workspace");
    }

    static PlatformConfig from(Path home, Optional<Path> file, Map<String, Object> v, ConfigTree tree, DotEnv dotenv,
                               Map<String, String> variables, List<String> warnings) {
        Optional<Secret> modelKey = secret(v, "model.api_key");
        Optional<String> baseUrl = opt(v, "model.base_url");
        if (baseUrl.isEmpty() && modelKey.isPresent()) baseUrl = Optional.of(OPENAI_BASE_URL);
        var server = new Server((String) v.get("server.host"), (int) v.get("server.port"), secret(v, "server.api_key"),
                list(v, "server.cors_origins"), (String) v.get("server.model_name"), (long) v.get("server.max_body_bytes"),
                (int) v.get("server.max_concurrent_runs"), (int) v.get("server.sse_keepalive_seconds"),
                (int) v.get("server.drain_timeout_seconds"), (int) v.get("server.idle_timeout_seconds"),
                (int) v.get("server.header_timeout_seconds"), (int) v.get("server.max_idle_connections_per_client"),
                (int) v.get("server.body_memory_percent"), (int) v.get("server.body_min_rate"),
                (int) v.get("server.body_grace_seconds"));
        var model = new Model(baseUrl, modelKey, opt(v, "model.name"), (int) v.get("model.timeout_seconds"),
                (boolean) v.get("model.health_probe"), (boolean) v.get("model.direct_model_requests"),
                Optional.ofNullable((Integer) v.get("model.max_tokens")), (boolean) v.get("model.stream"),
                (boolean) v.get("model.echo_reasoning"),
                Optional.ofNullable((com.fasterxml.jackson.databind.node.ObjectNode) v.get("model.extra_body")));
        var agent = new Agent(list(v, "agent.toolsets"), (int) v.get("agent.max_iterations"), (String) v.get("agent.runtime"),
                (int) v.get("agent.max_parallel_tools"), opt(v, "agent.identity_file"));
        var approvals = new Approvals((int) v.get("approvals.timeout"));
        var gateway = new Gateway(opt(v, "gateway.proxy_url"), secret(v, "gateway.proxy_key"),
                (int) v.get("gateway.proxy_read_timeout_seconds"));
        var retention = new Retention((int) v.get("runs.retention_days"), (int) v.get("runs.idempotency_retention_hours"),
                (int) v.get("sessions.retention_days"));
        var resume = new Resume((boolean) v.get("runs.resume"), (int) v.get("runs.max_resumes"),
                (java.time.Duration) v.get("runs.resume_window"));
        var plugins = new Plugins(path(v, "plugins.dir", home.resolve("plugins")), list(v, "plugins.enabled"),
                list(v, "plugins.disabled"));
        var observability = new Observability((boolean) v.get("metrics.enabled"), (boolean) v.get("metrics.public"),
                (boolean) v.get("logging.requests"));
        var storage = new Storage(secret(v, "database.url"), opt(v, "database.user"), secret(v, "database.password"),
                (int) v.get("database.pool_size"));
        return new PlatformConfig(home, file, server, model, agent, approvals, path(v, "tools.workspace", defaultWorkspace(home)), gateway, retention, resume, plugins, tree,
                dotenv, observability, storage, webhooks(v, tree, variables, warnings));
    }

    /**
     * {@code webhooks.*}: the secrets parsed and checked (a malformed one names its key and file), the endpoints
     * with their URL, events, secrets and {@code allow_private}, and Hermes' {@code hooks.outbound} ({@link HermesHooks}).
     */
    private static Webhooks webhooks(Map<String, Object> v, ConfigTree tree, Map<String, String> variables,
                                     List<String> warnings) {
        var secrets = secret(v, "webhooks.secret").map(s -> Webhooks.secrets("webhooks.secret", s.reveal(), tree))
                .orElse(List.of());
        var endpoints = new java.util.ArrayList<Webhooks.Endpoint>();
        var list = (com.fasterxml.jackson.databind.JsonNode) v.get("webhooks.endpoints");
        if (list != null) {
            for (int i = 0; i < list.size(); i++) {
                var key = "webhooks.endpoints[" + i + "]";
                var entry = list.get(i);
                var url = new Values(key + ".url", entry.path("url"), tree.source("webhooks.endpoints"), false).url();
                var events = entry.has("events")
                        ? new Values(key + ".events", entry.get("events"), tree.source("webhooks.endpoints"), false).list()
                        : List.<String>of();
                for (var event : events)
                    if (!dev.caduceus.spi.webhook.Webhook.EVENTS.contains(event))
                        throw new Values(key + ".events", entry.get("events"), tree.source("webhooks.endpoints"), false)
                                .invalid("names " + event + ", not an event (one of " + String.join(", ", dev.caduceus.spi.webhook.Webhook.EVENTS) + ")");
                var own = entry.hasNonNull("secret")
                        ? Webhooks.secrets(key + ".secret", new Values(key + ".secret", entry.get("secret"),
                                tree.source("webhooks.endpoints"), true).string(), tree)
                        : secrets;
                if (own.isEmpty())
                    throw new Values(key + ".secret", entry.path("secret"), tree.source("webhooks.endpoints"), true)
                            .invalid("is missing, and webhooks.secret is not set: a webhook endpoint needs a secret to sign with");
                boolean allowPrivate = entry.has("allow_private") && new Values(key + ".allow_private",
                        entry.get("allow_private"), tree.source("webhooks.endpoints"), false).bool();
                endpoints.add(new Webhooks.Endpoint(java.net.URI.create(url), events, own, allowPrivate));
            }
        }
        endpoints.addAll(HermesHooks.endpoints((com.fasterxml.jackson.databind.JsonNode) v.get(HermesHooks.KEY), tree,
                variables, warnings));
        return new Webhooks(secrets, endpoints, list(v, "webhooks.allow_private_hosts"),
                (java.time.Duration) v.get("webhooks.retry.initial"), (java.time.Duration) v.get("webhooks.retry.max"),
                (java.time.Duration) v.get("webhooks.retry.for"));
    }

    private static Optional<String> opt(Map<String, Object> v, String key) {
        return Optional.ofNullable((String) v.get(key)).filter(s -> !s.isBlank());
    }

    private static Optional<Secret> secret(Map<String, Object> v, String key) {
        return opt(v, key).map(Secret::new);
    }

    @SuppressWarnings("unchecked")
    private static List<String> list(Map<String, Object> v, String key) {
        return (List<String>) v.get(key);
    }

    private static Path path(Map<String, Object> v, String key, Path fallback) {
        Object p = v.get(key);
        return p == null ? fallback : (Path) p;
    }
}
