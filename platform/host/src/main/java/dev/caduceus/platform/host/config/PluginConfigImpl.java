package dev.caduceus.platform.host.config;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.config.PluginConfig;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One plugin's {@code plugins.<id>} subtree with typed getters. Errors name the full key
 * ({@code plugins.<id>.<key>}) and its source; values of keys that look like credentials
 * ({@code *key}, {@code *token}, {@code *secret}, {@code *password}) are redacted.
 *
 * <p>Thread-safe. The values are immutable; the only state is the set of keys read so far, so the
 * platform can warn about {@link #unreadKeys()} after boot.
 */
public final class PluginConfigImpl implements PluginConfig {
    private final String pluginId;
    private final ConfigTree tree;
    private final String prefix;
    private final Set<String> read = ConcurrentHashMap.newKeySet();

    public PluginConfigImpl(String pluginId, ConfigTree tree) {
        this(pluginId, tree, "plugins." + requireNonNull(pluginId, "pluginId") + ".");
    }

    private PluginConfigImpl(String pluginId, ConfigTree tree, String prefix) {
        this.pluginId = requireNonNull(pluginId, "pluginId");
        this.tree = requireNonNull(tree, "tree");
        this.prefix = prefix;
    }

    /** The shared {@code tools.*} section as a config view (keys like {@code terminal.timeout}). */
    public static PluginConfigImpl toolsSection(ConfigTree tree) {
        return section("tools", tree);
    }

    /** A top-level section ({@code responses}, {@code runs}, …) as a config view; {@code plugins} is refused. */
    public static PluginConfigImpl section(String name, ConfigTree tree) {
        if (name.equals("plugins") || name.isBlank() || name.contains("."))
            throw new IllegalArgumentException("not a shareable config section: " + name);
        return new PluginConfigImpl(name, tree, name + ".");
    }

    /** The plugin id this subtree belongs to. */
    public String pluginId() {
        return pluginId;
    }

    @Override
    public Optional<String> string(String key) {
        return values(key).map(Values::string);
    }

    @Override
    public String string(String key, String defaultValue) {
        return string(key).orElse(defaultValue);
    }

    @Override
    public int integer(String key, int defaultValue) {
        return values(key).map(v -> (int) v.integer(Integer.MIN_VALUE, Integer.MAX_VALUE)).orElse(defaultValue);
    }

    @Override
    public long longValue(String key, long defaultValue) {
        return values(key).map(v -> v.integer(Long.MIN_VALUE, Long.MAX_VALUE)).orElse(defaultValue);
    }

    @Override
    public boolean bool(String key, boolean defaultValue) {
        return values(key).map(Values::bool).orElse(defaultValue);
    }

    @Override
    public Duration duration(String key, Duration defaultValue) {
        return values(key).map(Values::duration).orElse(defaultValue);
    }

    @Override
    public List<String> list(String key, List<String> defaultValue) {
        return values(key).map(Values::list).orElse(defaultValue);
    }

    @Override
    public Optional<JsonNode> node(String key) {
        read.add(requireNonNull(key, "key"));
        return tree.node(prefix + key);
    }

    /** Leaf keys (relative, dotted) that are set but were never read, nor lie under a key that was. */
    public Set<String> unreadKeys() {
        Set<String> unread = new TreeSet<>();
        for (String full : tree.leafKeys()) {
            if (!full.startsWith(prefix)) continue;
            String key = full.substring(prefix.length());
            if (read.stream().noneMatch(r -> key.equals(r) || key.startsWith(r + "."))) unread.add(key);
        }
        return unread;
    }

    private Optional<Values> values(String key) {
        Optional<JsonNode> node = node(key);
        String full = prefix + key;
        return node.map(n -> new Values(full, n, tree.source(full), looksSecret(key)));
    }

    /** True when a setting's name ({@code *key}, {@code *token}, {@code *secret}, {@code *password}) says it is a credential. */
    static boolean looksSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return k.endsWith("key") || k.endsWith("token") || k.endsWith("secret") || k.endsWith("password");
    }

    @Override
    public String toString() {
        return "PluginConfig[" + pluginId + "]";
    }
}
