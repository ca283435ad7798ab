package dev.caduceus.plugin.mcp;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The whole environment of a stdio server's process: a minimal {@code PATH} (ours, so that
 * {@code npx} or {@code uvx} are found) and {@code HOME}, then the server's configured {@code env}
 * over them. Nothing else of our environment reaches the child: not the model keys, not the API key,
 * not {@code .env}. Stateless.
 */
final class ChildEnvironment {
    static final String FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin";

    private ChildEnvironment() {}

    /**
     * @param configured the server's {@code env}
     * @param path       our {@code PATH}, if set
     * @param home       our home directory
     */
    static Map<String, String> of(Map<String, String> configured, Optional<String> path, String home) {
        var env = new LinkedHashMap<String, String>();
        env.put("PATH", path.filter(p -> !p.isBlank()).orElse(FALLBACK_PATH));
        env.put("HOME", home);
        env.putAll(configured);
        return Map.copyOf(env);
    }
}
