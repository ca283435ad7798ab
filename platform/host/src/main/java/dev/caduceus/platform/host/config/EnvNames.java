package dev.caduceus.platform.host.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Maps environment variables to configuration keys: the documented names of the host's own keys
 * ({@code API_SERVER_PORT} is {@code server.port}; a plugin declares its own on its settings,
 * {@code PluginConfig.Setting.env}, which {@link DeclaredSettings} applies) and the generic
 * {@code CADUCEUS__<SEGMENT>__<SEGMENT>} form, lower-cased, where {@code _} stands for {@code -} in
 * the plugin id after {@code PLUGINS}. A documented name wins over the generic form for the same
 * key. Empty values count as unset. Stateless.
 */
public final class EnvNames {
    /** The state directory variable. */
    public static final String HOME = "CADUCEUS_HOME";
    static final String PREFIX = "CADUCEUS__";

    /** Documented names, in the order of the spec table. */
    static final Map<String, String> NAMED = Map.ofEntries(
            Map.entry("API_SERVER_ENABLED", "server.enabled"),
            Map.entry("API_SERVER_HOST", "server.host"),
            Map.entry("API_SERVER_PORT", "server.port"),
            Map.entry("API_SERVER_KEY", "server.api_key"),
            Map.entry("API_SERVER_CORS_ORIGINS", "server.cors_origins"),
            Map.entry("API_SERVER_MODEL_NAME", "server.model_name"),
            Map.entry("GATEWAY_PROXY_URL", "gateway.proxy_url"),
            Map.entry("GATEWAY_PROXY_KEY", "gateway.proxy_key"),
            Map.entry("OPENAI_BASE_URL", "model.base_url"),
            Map.entry("OPENAI_API_KEY", "model.api_key"),
            Map.entry("CADUCEUS_MODEL", "model.name"),
            Map.entry("HERMES_MAX_ITERATIONS", "agent.max_iterations"),
            Map.entry("CADUCEUS_LOG_LEVEL", "logging.level"),
            Map.entry("CADUCEUS_DATABASE_URL", "database.url"),
            Map.entry("CADUCEUS_DATABASE_USER", "database.user"),
            Map.entry("CADUCEUS_DATABASE_PASSWORD", "database.password"));

    /** One variable that sets one key. */
    public record Setting(String key, String value, String variable) {
        /** The source, as error messages name it. */
        public String source() {
            return "environment variable " + variable;
        }

        @Override
        public String toString() {
            return "Setting[" + key + " from " + variable + "]"; // the value may be a secret
        }
    }

    private EnvNames() {}

    /** The key a variable sets, if it is one of ours. */
    public static Optional<String> keyFor(String variable) {
        String named = NAMED.get(variable);
        if (named != null) return Optional.of(named);
        if (!variable.startsWith(PREFIX)) return Optional.empty();
        String[] segments = variable.substring(PREFIX.length()).split("__", -1);
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < segments.length; i++) {
            String s = segments[i].toLowerCase(Locale.ROOT);
            if (s.isEmpty()) return Optional.empty();
            boolean pluginId = i == 1 && segments.length > 2 && parts.get(0).equals("plugins");
            parts.add(pluginId ? s.replace('_', '-') : s);
        }
        return Optional.of(String.join(".", parts));
    }

    /** The settings found in {@code env}, sorted by key; documented names override generic ones. */
    public static List<Setting> settings(Map<String, String> env) {
        Map<String, Setting> byKey = new TreeMap<>();
        for (var e : new TreeMap<>(env).entrySet()) {
            if (e.getValue() == null || e.getValue().isEmpty()) continue;
            keyFor(e.getKey()).ifPresent(key -> {
                Setting s = new Setting(key, e.getValue(), e.getKey());
                Setting old = byKey.get(key);
                if (old == null || NAMED.containsKey(e.getKey())) byKey.put(key, s);
            });
        }
        return List.copyOf(byKey.values());
    }
}
