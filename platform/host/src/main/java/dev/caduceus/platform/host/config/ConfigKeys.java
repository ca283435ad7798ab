package dev.caduceus.platform.host.config;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The host's own keys: type, default, validation and one line of meaning. Keys under {@code model.routes.*}
 * and {@code plugins.<id>.*} are free-form; other sections belong to the plugins that declare them.
 * Immutable.
 */
final class ConfigKeys {
    /** The form a value must take. */
    enum Type { STRING, INT, LONG, BOOL, CHOICE, LIST, URL, PATH, OBJECT, DURATION,
        /** A YAML list of mappings ({@code webhooks.endpoints}). */
        OBJECT_LIST,
        /** A mapping of names to one of {@code choices} each ({@code logging.levels}); from the environment {@code name=value,…}. */
        CHOICE_MAP }

    /**
     * One known key. {@code defaultValue} is the typed default, or {@code null} for none (or a
     * default computed from the state directory).
     */
    record Key(String name, Type type, Object defaultValue, boolean secret, long min, long max, List<String> choices,
               String description) {
        Key {
            requireNonNull(name, "name");
            requireNonNull(type, "type");
            requireNonNull(description, "description");
            choices = List.copyOf(choices);
        }

        /** Converts and validates {@code values}; throws ConfigException naming key, value and source. */
        Object convert(Values values, java.nio.file.Path userHome) {
            return switch (type) {
                case STRING -> values.string();
                case INT -> (int) values.integer(min, max);
                case LONG -> values.integer(min, max);
                case BOOL -> values.bool();
                case CHOICE -> values.choice(choices);
                case LIST -> values.list();
                case URL -> values.url();
                case PATH -> values.path(userHome);
                case OBJECT -> {
                    values.requireObject();
                    yield values.node().deepCopy();
                }
                case CHOICE_MAP -> values.choiceMap(choices);
                case DURATION -> values.duration();
                case OBJECT_LIST -> {
                    values.requireObjectList();
                    yield values.node().deepCopy();
                }
            };
        }
    }

    /**
     * The host's top-level sections. Keys in other sections (and unknown keys in these) are warned
     * about after boot unless a started plugin declares them ({@link DeclaredSettings}).
     */
    static final Set<String> SECTIONS = Set.of("server", "model", "agent", "approvals", "tools", "gateway",
            "runs", "sessions", "plugins", "http", "metrics", "logging", "database", "webhooks", "hooks");

    /** The levels {@code logging.level} and {@code logging.levels} accept, least severe first. */
    static final List<String> LEVELS = List.of("trace", "debug", "info", "warn", "error", "off");

    static final Map<String, Key> KEYS = build(
            bool("server.enabled", true, "serve at all (false: serve exits 0 saying so)"),
            str("server.host", "127.0.0.1", "the address to listen on"),
            integer("server.port", 8642, 0, 65535, "the port to listen on (0: any free port)"),
            secret("server.api_key", "the admin key; generated and stored hashed in $CADUCEUS_HOME/api_key when unset"),
            list("server.cors_origins", List.of(), "browser origins allowed to call the API (CORS); empty: none"),
            str("server.model_name", "hermes-agent", "the model id clients see and send"),
            new Key("server.max_body_bytes", Type.LONG, 10_000_000L, false, 1, Long.MAX_VALUE, List.of(),
                    "the largest request body accepted (413 beyond)"),
            integer("server.body_memory_percent", 15, 0, 100, "the share of the JVM's maximum heap, in percent, that request bodies"
                    + " being handled may hold at once; a request beyond it waits up to 30 s, then 503 server_busy (0: no limit)"),
            integer("server.max_concurrent_runs", 10, 0, Integer.MAX_VALUE, "agent turns at once (0: unlimited; 429 beyond)"),
            integer("server.sse_keepalive_seconds", 30, 1, Integer.MAX_VALUE, "a keepalive comment after this long without a frame"),
            integer("server.drain_timeout_seconds", 30, 0, Integer.MAX_VALUE, "how long shutdown waits for running turns"),
            integer("server.idle_timeout_seconds", 30, 1, Integer.MAX_VALUE, "idle time after which a connection is closed"),
            integer("server.header_timeout_seconds", 20, 1, Integer.MAX_VALUE, "time allowed to send a request's headers"),
            integer("server.body_min_rate", 256, 0, Integer.MAX_VALUE, "the lowest average rate, in bytes per second, at which"
                    + " a request body must arrive once reading began; slower, or stalled past its credit, is 408 request_timeout"
                    + " with the connection closed (0: no minimum; the idle timeout still applies)"),
            integer("server.body_grace_seconds", 10, 1, Integer.MAX_VALUE, "how long a request body may stall without a byte,"
                    + " and the most credit a fast start earns against server.body_min_rate"),
            integer("server.max_idle_connections_per_client", 64, 0, Integer.MAX_VALUE, "kept-alive connections one client address may hold"),
            new Key("model.base_url", Type.URL, null, false, 0, 0, List.of(),
                    "the upstream's OpenAI-compatible base URL, with /v1 (https://api.openai.com/v1 when only an API key is set)"),
            secret("model.api_key", "the upstream's bearer key"),
            str("model.name", null, "the upstream model id"),
            integer("model.timeout_seconds", 600, 1, Integer.MAX_VALUE, "one upstream call's time limit"),
            integer("model.idle_timeout_seconds", 300, 1, Integer.MAX_VALUE,
                    "longest silence of an upstream call (no byte received) before it fails; never more than timeout_seconds"),
            choice("model.protocol", "the HTTP version to the upstream: auto (HTTP/2 or 1.1 by ALPN on https, 1.1 on http), "
                    + "http1.1, or h2c (HTTP/2 without TLS by prior knowledge)", "auto", "http1.1", "h2c"),
            path("model.tls.ca_file", "PEM certificates to trust for the upstream instead of the JDK's (a private CA)"),
            path("model.tls.client_cert", "a PEM client certificate chain to present to the upstream (with client_key)"),
            path("model.tls.client_key", "the client certificate's unencrypted PKCS#8 PEM key"),
            bool("model.health_probe", true, "/health/detailed asks the upstream (GET {base_url}/models, cached 60 s) whether it answers"),
            new Key("model.routes", Type.OBJECT, null, false, 0, 0, List.of(), "model routes a request's model may name: "
                    + "name: {base_url, api_key, model} or {deployments: [...], fallbacks: [...]} (docs/models.md)"),
            new Key("model.deployments", Type.OBJECT_LIST, null, false, 0, 0, List.of(), "more deployments of the default "
                    + "route beside model.base_url: [{base_url, api_key | api_key_env, model, weight, rpm, tpm, timeout_seconds, "
                    + "context_window, price}]"),
            new Key("model.price", Type.OBJECT, null, false, 0, 0, List.of(), "what the configured model's tokens cost, in USD "
                    + "per million: {input, cached_input, output, reasoning} (cached_input defaults to input, reasoning to "
                    + "output); a route's deployments set their own price"),
            integer("model.tpm", 0, 0, Integer.MAX_VALUE, "tokens per minute the configured upstream may be sent (0: no cap)"),
            integer("model.context_window", 0, 0, Integer.MAX_VALUE, "the configured model's context in tokens (0: unknown); "
                    + "a longer prompt goes to model.fallbacks without being sent"),
            list("model.fallbacks", List.of(), "the routes the default route falls back to when all its deployments fail"),
            integer("model.cooldown_seconds", 5, 1, 3600, "how long a failed deployment is passed over first (doubling "
                    + "with each failure in a row, at most 12 times this)"),
            bool("model.direct_model_requests", false, "pass a request's other model names upstream instead of refusing them"),
            bool("model.strict_names", false, "answer 404 model_not_found to a request's model that is neither the "
                    + "advertised name nor a route, as OpenAI does (default: such names mean the default route)"),
            new Key("model.max_tokens", Type.INT, null, false, 1, Integer.MAX_VALUE, List.of(), "max_tokens sent upstream"),
            bool("model.stream", true, "stream upstream calls"),
            bool("model.echo_reasoning", false, "send stored reasoning back upstream"),
            new Key("model.extra_body", Type.OBJECT, null, false, 0, 0, List.of(), "keys added to every upstream request body"),
            list("agent.toolsets", List.of("hermes-api-server"), "the toolsets an agent turn offers"),
            integer("agent.max_iterations", 90, 1, Integer.MAX_VALUE, "model calls in one turn at most"),
            str("agent.runtime", "auto", "the agent runtime: auto (a plugin runtime whose configuration is set, else local), "
                    + "local, or the id of a runtime a plugin contributes"),
            integer("agent.max_parallel_tools", 8, 1, 64, "tool calls of one model answer run at once"),
            str("agent.identity_file", null, "a file whose text replaces the agent's identity in the system prompt"),
            integer("approvals.timeout", 300, 1, Integer.MAX_VALUE, "seconds an approval waits before it counts as denied, and a run its caller's tool outputs before it is cancelled"),
            path("tools.workspace", "where tools work (default $CADUCEUS_HOME-workspace)"),
            new Key("gateway.proxy_url", Type.URL, null, false, 0, 0, List.of(), "a remote Hermes-compatible server that runs the turns (proxy mode)"),
            secret("gateway.proxy_key", "the remote server's API key"),
            integer("gateway.proxy_read_timeout_seconds", 1800, 1, Integer.MAX_VALUE, "how long a relayed turn may stay silent"),
            integer("runs.retention_days", 7, 0, Integer.MAX_VALUE, "finished runs and their events are kept this long"),
            integer("runs.idempotency_retention_hours", 24, 0, Integer.MAX_VALUE, "a run's Idempotency-Key is remembered this long"),
            bool("runs.resume", true, "a run of /v1/runs or a job that was live when its server stopped continues where it "
                    + "was, at the next start or (PostgreSQL) on another node; false: it ends interrupted"),
            integer("runs.max_resumes", 3, 0, 1000, "times one run is resumed at most; a run whose server stops once more "
                    + "ends failed (resume_limit)"),
            new Key("runs.resume_window", Type.DURATION, java.time.Duration.ofHours(24), false, 0, 0, List.of(),
                    "a run that started longer ago than this is not resumed but ends interrupted (e.g. 30m, 24h)"),
            integer("sessions.retention_days", 30, 0, Integer.MAX_VALUE, "chat session transcripts are kept this long"),
            secret("webhooks.secret", "signs the webhooks a request, key or endpoint without its own secret names (Standard "
                    + "Webhooks): whsec_ and the base64 of 24 to 64 random bytes; several, separated by spaces, while rotating"),
            new Key("webhooks.endpoints", Type.OBJECT_LIST, null, false, 0, 0, List.of(), "the deployment's webhook "
                    + "endpoints, each {url, events (omitted: all), secret (default webhooks.secret), allow_private (false)}"),
            new Key(HermesHooks.KEY, Type.OBJECT_LIST, null, false, 0, 0, List.of(), "Hermes' outbound webhooks, each {url, "
                    + "events (Hermes' on_session_end, pre_approval_request or ours), secret or secret_env (signs "
                    + "X-Hermes-Signature-256 too; none: unsigned), timeout (s, at most 10), allow_private}"),
            list("webhooks.allow_private_hosts", List.of(), "hosts a per-request webhook may name although they are private, "
                    + "loopback or link-local (never a cloud metadata address)"),
            new Key("webhooks.retry.initial", Type.DURATION, java.time.Duration.ofSeconds(5), false, 0, 0, List.of(),
                    "the wait before a failed delivery's first retry; each next one waits twice as long, with jitter"),
            new Key("webhooks.retry.max", Type.DURATION, java.time.Duration.ofHours(1), false, 0, 0, List.of(),
                    "the longest wait between two attempts (a receiver's Retry-After counts, up to this)"),
            new Key("webhooks.retry.for", Type.DURATION, java.time.Duration.ofHours(24), false, 0, 0, List.of(),
                    "how long a delivery is retried before it counts as failed"),
            bool("metrics.enabled", true, "serve GET /metrics (Prometheus text format; OpenMetrics when asked); false: 404"),
            bool("metrics.public", false, "GET /metrics without the API key (for a scraper on a trusted network)"),
            bool("logging.requests", true, "one log line per request (logger dev.caduceus.requests): method, route, status, "
                    + "duration, bytes, key name, run id"),
            new Key("http.proxy.url", Type.URL, null, true, 0, 0, List.of(),
                    "the proxy for outbound calls (http://[user:password@]host:port); unset: HTTP_PROXY, HTTPS_PROXY, ALL_PROXY"),
            new Key("http.proxy.https_url", Type.URL, null, true, 0, 0, List.of(),
                    "a different proxy for https targets (default: http.proxy.url)"),
            list("http.proxy.no_proxy", null, "targets reached directly, as NO_PROXY: host suffixes, addresses, CIDR blocks, "
                    + "host:port, * (unset: NO_PROXY)"),
            secret("database.url", "PostgreSQL for several nodes: postgresql://user:password@host:5432/db?sslmode=require or "
                    + "jdbc:postgresql://…; unset: the embedded SQLite file $CADUCEUS_HOME/caduceus.db (one node)"),
            str("database.user", null, "the PostgreSQL role (over the URL's)"),
            secret("database.password", "the PostgreSQL password (over the URL's)"),
            integer("database.pool_size", 8, 1, 500, "PostgreSQL connections per pool: one pool for writes, one for reads, and one for single statements per owner that runs them"),
            path("plugins.dir", "an extra folder of plugin jars"),
            list("plugins.enabled", List.of(), "only these plugin ids start (empty: all)"),
            list("plugins.disabled", List.of(), "these plugin ids never start"),
            new Key("logging.level", Type.CHOICE, "info", false, 0, 0, LEVELS,
                    "the level of every logger logging.levels does not name, for the platform's, the plugins' (System.Logger) "
                            + "and java.util.logging's lines alike; CADUCEUS_LOG_LEVEL applies from the very start, before the config is read"),
            new Key("logging.levels", Type.CHOICE_MAP, null, false, 0, 0, LEVELS,
                    "levels per logger or package, e.g. {dev.caduceus.plugin.jobs: debug}; from the environment "
                            + "name=level,name=level; org.eclipse.jetty, org.pf4j and com.zaxxer.hikari are at warn unless named here"),
            choice("logging.format", "the log lines on stderr: text (HH:mm:ss.SSS LEVEL [thread] Logger - message "
                    + "[request_id=… run_id=…], then any stack trace) or json (one object per line: time, level, logger, "
                    + "thread, message, request_id, run_id, the event's key-value pairs, error with the stack trace)",
                    "text", "json"));

    private ConfigKeys() {}

    static Optional<Key> find(String name) {
        return Optional.ofNullable(KEYS.get(name));
    }

    /** True when a key is secret: its value never appears in messages. */
    static boolean isSecret(String name) {
        return find(name).map(Key::secret).orElse(false);
    }

    /** Whether the host itself knows {@code leaf}: one of its keys (or under one), or a {@code plugins.<id>.*} key. */
    static boolean isKnown(String leaf) {
        String[] parts = leaf.split("\\.");
        if (!SECTIONS.contains(parts[0])) return false;
        if (parts[0].equals("plugins") && parts.length > 2) return true; // plugins.<id>.*: the plugin's own
        for (String known : KEYS.keySet()) {
            if (leaf.equals(known) || leaf.startsWith(known + ".")) return true;
        }
        return false;
    }

    private static Map<String, Key> build(Key... keys) {
        var map = new LinkedHashMap<String, Key>();
        for (Key k : keys) map.put(k.name(), k);
        return java.util.Collections.unmodifiableMap(map);
    }

    private static Key str(String name, String def, String description) {
        return new Key(name, Type.STRING, def, false, 0, 0, List.of(), description);
    }

    private static Key secret(String name, String description) {
        return new Key(name, Type.STRING, null, true, 0, 0, List.of(), description);
    }

    private static Key integer(String name, int def, long min, long max, String description) {
        return new Key(name, Type.INT, def, false, min, max, List.of(), description);
    }

    private static Key bool(String name, boolean def, String description) {
        return new Key(name, Type.BOOL, def, false, 0, 0, List.of(), description);
    }

    private static Key list(String name, List<String> def, String description) {
        return new Key(name, Type.LIST, def, false, 0, 0, List.of(), description);
    }

    private static Key choice(String name, String description, String def, String... others) {
        return new Key(name, Type.CHOICE, def, false, 0, 0, java.util.stream.Stream.concat(
                java.util.stream.Stream.of(def), java.util.stream.Stream.of(others)).toList(), description);
    }

    private static Key path(String name, String description) {
        return new Key(name, Type.PATH, null, false, 0, 0, List.of(), description);
    }
}
