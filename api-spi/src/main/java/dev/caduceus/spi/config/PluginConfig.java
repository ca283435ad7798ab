package dev.caduceus.spi.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One plugin's configuration subtree, {@code plugins.<id>.*}, after the file, environment
 * ({@code CADUCEUS__PLUGINS__<ID>__<KEY>}) and flags are merged.
 *
 * <p>Keys are relative to the subtree and may be dotted ({@code "limits.max"}). Typed getters throw
 * {@link ConfigException} naming the full key and its source when a value has the wrong type.
 * Keys never read are warned about after boot.
 *
 * <p>Immutable; thread-safe.
 */
public interface PluginConfig {

    Optional<String> string(String key);

    String string(String key, String defaultValue);

    int integer(String key, int defaultValue);

    long longValue(String key, long defaultValue);

    boolean bool(String key, boolean defaultValue);

    /** A duration written as seconds ({@code 30}) or with a unit ({@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}). */
    Duration duration(String key, Duration defaultValue);

    /** A list of strings, written as a YAML list or a comma-separated string. */
    List<String> list(String key, List<String> defaultValue);

    /** The raw subtree at {@code key} (a copy), or empty. */
    Optional<JsonNode> node(String key);

    /**
     * One configuration key a plugin reads, declared through {@code PlatformPlugin.settings()}: the
     * host checks its value at boot (a wrong type or an unknown choice stops the boot, naming the key
     * and the file or variable it came from), does not warn about it as unknown, and lists it in the
     * configuration reference ({@code caduceus config-reference}). Immutable.
     *
     * @param key          the full dotted key from the top of {@code config.yaml}
     *                     ({@code chat.tool_progress_events}, {@code plugins.tool-web.user_agent})
     * @param type         the form its value takes
     * @param defaultValue the default as written in YAML, or null for none
     * @param choices      the allowed values of a {@link Type#CHOICE}; empty otherwise
     * @param min          the smallest {@link Type#INT} accepted
     * @param secret       a key, password or token: its value is never shown in messages
     * @param description  one sentence for the reference
     * @param env          environment variables that set this key too, first found wins (a documented
     *                     name such as {@code TAVILY_API_KEY}); they override the file and are overridden
     *                     by flags, like the host's own documented names. Empty for none: the generic
     *                     {@code CADUCEUS__<SECTION>__<KEY>} form always works
     */
    record Setting(String key, Type type, String defaultValue, List<String> choices, long min, boolean secret,
                   String description, List<String> env) {
        /** The forms a value can take. */
        public enum Type { STRING, INT, BOOL, CHOICE, DURATION, LIST, OBJECT }

        public Setting {
            java.util.Objects.requireNonNull(key, "key");
            java.util.Objects.requireNonNull(type, "type");
            java.util.Objects.requireNonNull(description, "description");
            choices = List.copyOf(choices);
            env = List.copyOf(env);
            for (var name : env)
                if (name.isBlank() || !name.equals(name.strip())) throw new IllegalArgumentException(key + ": bad variable name '" + name + "'");
            if (key.isBlank() || key.startsWith(".") || key.endsWith(".")) throw new IllegalArgumentException("bad key: " + key);
            if ((type == Type.CHOICE) == choices.isEmpty())
                throw new IllegalArgumentException(key + ": choices go with CHOICE, and only with it");
            if (secret && defaultValue != null) throw new IllegalArgumentException(key + ": a secret has no default");
            if (type == Type.CHOICE && defaultValue != null && !choices.contains(defaultValue))
                throw new IllegalArgumentException(key + ": default " + defaultValue + " is not among " + choices);
        }

        /** A declaration without environment variables of its own. */
        public Setting(String key, Type type, String defaultValue, List<String> choices, long min, boolean secret,
                       String description) {
            this(key, type, defaultValue, choices, min, secret, description, List.of());
        }

        /** This setting, also set by the environment variables {@code names} (see {@link #env()}). */
        public Setting withEnv(String... names) {
            return new Setting(key, type, defaultValue, choices, min, secret, description, List.of(names));
        }

        /** A string. */
        public static Setting string(String key, String defaultValue, String description) {
            return new Setting(key, Type.STRING, defaultValue, List.of(), 0, false, description);
        }

        /** An integer of at least {@code min}. */
        public static Setting integer(String key, long defaultValue, long min, String description) {
            return new Setting(key, Type.INT, Long.toString(defaultValue), List.of(), min, false, description);
        }

        /** {@code true} or {@code false}. */
        public static Setting bool(String key, boolean defaultValue, String description) {
            return new Setting(key, Type.BOOL, Boolean.toString(defaultValue), List.of(), 0, false, description);
        }

        /** One of {@code choices}; {@code defaultValue} may be null (none). */
        public static Setting choice(String key, String defaultValue, List<String> choices, String description) {
            return new Setting(key, Type.CHOICE, defaultValue, choices, 0, false, description);
        }

        /** Seconds ({@code 30}) or a value with a unit ({@code 500ms}, {@code 5m}). */
        public static Setting duration(String key, String defaultValue, String description) {
            return new Setting(key, Type.DURATION, defaultValue, List.of(), 0, false, description);
        }

        /** A secret string (a key, password or token), without a default. */
        public static Setting secret(String key, String description) {
            return new Setting(key, Type.STRING, null, List.of(), 0, true, description);
        }

        /** A YAML list or a comma-separated string. */
        public static Setting list(String key, String defaultValue, String description) {
            return new Setting(key, Type.LIST, defaultValue, List.of(), 0, false, description);
        }
    }
}
