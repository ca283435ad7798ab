package dev.caduceus.platform.config;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The one schema of known global keys: type, default and validation. Keys under {@code tools.*}, {@code model.routes.*} and {@code plugins.<id>.*} are free-form.
 * Immutable.
 */
final class ConfigKeys {
    /** The form a value must take. */
    enum Type { STRING, INT, LONG, BOOL, CHOICE, LIST, URL, PATH, OBJECT }

    /**
     * One known key. {@code defaultValue} is the typed default, or {@code null} for none (or a
     * default computed from the state directory).
     */
    record Key(String name, Type type, Object defaultValue, boolean secret, long min, long max, List<String> choices) {
        Key {
            requireNonNull(name, "name");
            requireNonNull(type, "type");
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
            };
        }
    }

    /** Top-level sections; any other top-level key is warned about. */
    static final Set<String> SECTIONS = Set.of("server", "model", "agent", "chat", "approvals", "tools", "gateway",
            "responses", "runs", "sessions", "idempotency", "plugins");

    /** Sections where any key is accepted (plugins' own settings live under plugins.<id>). */
    static final Set<String> FREE_FORM = Set.of("tools");

    static final Map<String, Key> KEYS = build(
            bool("server.enabled", true),
            str("server.host", "127.0.0.1"),
            integer("server.port", 8642, 0, 65535),
            secret("server.api_key"),
            list("server.cors_origins", List.of()),
            str("server.model_name", "hermes-agent"),
            new Key("server.max_body_bytes", Type.LONG, 10_000_000L, false, 1, Long.MAX_VALUE, List.of()),
            integer("server.max_concurrent_runs", 10, 0, Integer.MAX_VALUE),
            integer("server.sse_keepalive_seconds", 30, 1, Integer.MAX_VALUE),
            integer("server.drain_timeout_seconds", 30, 0, Integer.MAX_VALUE),
            integer("server.idle_timeout_seconds", 30, 1, Integer.MAX_VALUE),
            integer("server.header_timeout_seconds", 20, 1, Integer.MAX_VALUE),
            integer("server.max_idle_connections_per_client", 64, 0, Integer.MAX_VALUE),
            new Key("model.base_url", Type.URL, null, false, 0, 0, List.of()),
            secret("model.api_key"),
            str("model.name", null),
            integer("model.timeout_seconds", 600, 1, Integer.MAX_VALUE),
            bool("model.health_probe", true),
            new Key("model.routes", Type.OBJECT, null, false, 0, 0, List.of()),
            bool("model.direct_model_requests", false),
            new Key("model.max_tokens", Type.INT, null, false, 1, Integer.MAX_VALUE, List.of()),
            bool("model.stream", true),
            bool("model.echo_reasoning", false),
            new Key("model.extra_body", Type.OBJECT, null, false, 0, 0, List.of()),
            str("model.housekeeping_model", null),
            list("agent.toolsets", List.of("hermes-api-server")),
            integer("agent.max_iterations", 90, 1, Integer.MAX_VALUE),
            choice("agent.runtime", "auto", "local", "relay"),
            integer("agent.max_parallel_tools", 8, 1, 64),
            str("agent.identity_file", null),
            choice("chat.tool_progress_events", "opt_in", "always", "off"),
            // read by endpoint-chat from its section; no default, so the legacy key above still decides
            new Key("chat.tool_progress", Type.CHOICE, null, false, 0, 0,
                    List.of("comments", "events", "reasoning", "none")),
            choice("chat.housekeeping", "plain", "agent"),
            choice("approvals.mode", "manual", "off"),
            integer("approvals.timeout", 300, 1, Integer.MAX_VALUE),
            path("tools.workspace"),
            new Key("gateway.proxy_url", Type.URL, null, false, 0, 0, List.of()),
            secret("gateway.proxy_key"),
            integer("gateway.proxy_read_timeout_seconds", 1800, 1, Integer.MAX_VALUE),
            integer("responses.max_stored", 10_000, 0, Integer.MAX_VALUE),
            integer("responses.event_retention_hours", 24, 0, Integer.MAX_VALUE),
            integer("runs.retention_days", 7, 0, Integer.MAX_VALUE),
            integer("runs.idempotency_retention_hours", 24, 0, Integer.MAX_VALUE),
            integer("sessions.retention_days", 30, 0, Integer.MAX_VALUE),
            integer("idempotency.ttl_seconds", 300, 0, Integer.MAX_VALUE),
            integer("idempotency.max_entries", 1000, 0, Integer.MAX_VALUE),
            path("plugins.dir"),
            list("plugins.enabled", List.of()),
            list("plugins.disabled", List.of()));

    private ConfigKeys() {}

    static Optional<Key> find(String name) {
        return Optional.ofNullable(KEYS.get(name));
    }

    /** True when a key is secret: its value never appears in messages. */
    static boolean isSecret(String name) {
        return find(name).map(Key::secret).orElse(false);
    }

    private static Map<String, Key> build(Key... keys) {
        var map = new LinkedHashMap<String, Key>();
        for (Key k : keys) map.put(k.name(), k);
        return java.util.Collections.unmodifiableMap(map);
    }

    private static Key str(String name, String def) {
        return new Key(name, Type.STRING, def, false, 0, 0, List.of());
    }

    private static Key secret(String name) {
        return new Key(name, Type.STRING, null, true, 0, 0, List.of());
    }

    private static Key integer(String name, int def, long min, long max) {
        return new Key(name, Type.INT, def, false, min, max, List.of());
    }

    private static Key bool(String name, boolean def) {
        return new Key(name, Type.BOOL, def, false, 0, 0, List.of());
    }

    private static Key list(String name, List<String> def) {
        return new Key(name, Type.LIST, def, false, 0, 0, List.of());
    }

    private static Key choice(String name, String def, String... others) {
        return new Key(name, Type.CHOICE, def, false, 0, 0, java.util.stream.Stream.concat(
                java.util.stream.Stream.of(def), java.util.stream.Stream.of(others)).toList());
    }

    private static Key path(String name) {
        return new Key(name, Type.PATH, null, false, 0, 0, List.of());
    }
}
