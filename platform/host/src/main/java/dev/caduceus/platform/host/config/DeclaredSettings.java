package dev.caduceus.platform.host.config;

import dev.caduceus.spi.config.ConfigException;
import dev.caduceus.spi.config.PluginConfig.Setting;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configuration keys the started plugins declare ({@code PlatformPlugin.settings()}), checked
 * against the merged configuration as each plugin declares them: a wrong type or an unknown choice is
 * a {@link ConfigException} naming the key and where its value came from, as for the host's own keys.
 * Afterwards, every key set in the configuration that neither the host nor a plugin declares is
 * reported as unknown. A setting's own environment variables ({@link Setting#env()}, such as
 * tool-web's {@code TAVILY_API_KEY}) are applied as it is declared, above the file and below flags,
 * so the host knows no plugin's variable names; {@link #tree} is the configuration with them, which
 * plugin contexts read. Used on the boot thread; immutable views.
 */
public final class DeclaredSettings {
    /** One declaration and who made it. */
    public record Declared(String pluginId, Setting setting) {}

    private volatile ConfigTree tree;
    private final Map<String, String> env;
    private final Map<String, Declared> byKey = new LinkedHashMap<>();

    /** Without environment variables (tests, tools that only list declarations). */
    public DeclaredSettings(ConfigTree tree) {
        this(tree, Map.of());
    }

    /** @param env the process environment with {@code .env} under it, for the settings' own variables */
    public DeclaredSettings(ConfigTree tree, Map<String, String> env) {
        this.tree = tree;
        this.env = Map.copyOf(env);
    }

    /** The merged configuration with the variables of every setting declared so far. */
    public ConfigTree tree() {
        return tree;
    }

    /**
     * Records {@code pluginId}'s settings and checks their values. A key the host owns, or that another
     * plugin declared differently, is refused (the plugin's mistake, named as such).
     */
    public void declare(String pluginId, List<Setting> settings) {
        for (var setting : settings) {
            if (ConfigKeys.find(setting.key()).isPresent())
                throw new IllegalArgumentException("plugin '" + pluginId + "' declares the setting " + setting.key()
                        + ", which is the host's own");
            var other = byKey.get(setting.key());
            if (other != null && !same(other.setting(), setting))
                throw new IllegalArgumentException("plugins '" + other.pluginId() + "' and '" + pluginId
                        + "' declare the setting " + setting.key() + " differently");
            if (other == null) byKey.put(setting.key(), new Declared(pluginId, setting));
            applyEnvironment(setting);
            check(setting);
        }
    }

    private void applyEnvironment(Setting setting) {
        if (tree.source(setting.key()).startsWith("flag ")) return; // flags win
        for (var name : setting.env()) {
            var value = env.get(name);
            if (value == null || value.isEmpty()) continue;
            tree = tree.with(setting.key(), value, "environment variable " + name);
            return;
        }
    }

    /** Every declaration, in the order made. */
    public List<Declared> all() {
        return List.copyOf(byKey.values());
    }

    /** Warnings for keys set in the configuration that nothing declares, naming where each was set. */
    public List<String> unknownKeys() {
        var warnings = new ArrayList<String>();
        for (String leaf : tree.leafKeys()) {
            if (leaf.isEmpty() || ConfigKeys.isKnown(leaf) || declared(leaf)) continue;
            warnings.add("Unknown configuration key " + leaf + " in " + tree.source(leaf) + "; it is ignored");
        }
        return warnings;
    }

    private boolean declared(String leaf) {
        for (var key : byKey.keySet()) if (leaf.equals(key) || leaf.startsWith(key + ".")) return true;
        return false;
    }

    private void check(Setting setting) {
        var node = tree.node(setting.key());
        if (node.isEmpty() || node.get().isNull()) return;
        var values = new Values(setting.key(), node.get(), tree.source(setting.key()), setting.secret());
        switch (setting.type()) {
            case STRING -> values.string();
            case INT -> values.integer(setting.min(), Long.MAX_VALUE);
            case BOOL -> values.bool();
            case CHOICE -> values.choice(setting.choices());
            case DURATION -> values.duration();
            case LIST -> values.list();
            case OBJECT -> values.requireObject();
        }
    }

    private static boolean same(Setting a, Setting b) {
        return a.type() == b.type() && java.util.Objects.equals(a.defaultValue(), b.defaultValue())
                && a.choices().equals(b.choices()) && a.min() == b.min() && a.secret() == b.secret();
    }
}
