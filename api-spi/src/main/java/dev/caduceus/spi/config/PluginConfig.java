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
}
