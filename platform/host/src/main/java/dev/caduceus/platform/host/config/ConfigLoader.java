package dev.caduceus.platform.host.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.caduceus.spi.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the configuration. Sources, highest first: command-line flags, the environment
 * ({@link EnvNames}), {@code $CADUCEUS_HOME/.env} ({@link DotEnv}), the YAML file ({@code --config FILE}, else {@code $CADUCEUS_HOME/config.yaml}
 * if it exists), built-in defaults ({@link ConfigKeys}). Every error names the key and its source.
 * Immutable; one instance per boot (or per health probe).
 */
public final class ConfigLoader {
    private final Map<String, String> env;
    private final Path userHome;

    /** A command-line flag that sets {@code key}; {@code name} is how the user wrote it ({@code --port}). */
    public record Flag(String name, String key, String value) {
        @Override
        public String toString() {
            return "Flag[" + name + " -> " + key + "]"; // the value may be a secret
        }
    }

    public ConfigLoader(Map<String, String> env, Path userHome) {
        this.env = Map.copyOf(env);
        this.userHome = userHome.toAbsolutePath().normalize();
    }

    /** Loads with the process's {@code user.home}; flag overrides are dotted key to value. */
    public static LoadedConfig load(Map<String, String> env, Optional<Path> configFlag, Map<String, String> flagOverrides) {
        List<Flag> flags = flagOverrides.entrySet().stream()
                .map(e -> new Flag("--set " + e.getKey(), e.getKey(), e.getValue())).toList();
        return new ConfigLoader(env, Path.of(System.getProperty("user.home"))).load(configFlag, flags);
    }

    /** True when {@code file} exists, parses and validates on its own (the {@code config} health check). */
    public static boolean stillParses(Path file) {
        try {
            // The process's environment, as at boot: the file's ${VAR} references name its variables.
            new ConfigLoader(System.getenv(), Path.of(System.getProperty("user.home"))).load(Optional.of(file), List.of());
            return true;
        } catch (ConfigException | IllegalArgumentException e) {
            return false;
        }
    }

    /** The state directory: {@code $CADUCEUS_HOME} (with {@code ~} expanded), else {@code ~/.caduceus}. */
    public Path home() {
        String value = env.get(EnvNames.HOME);
        if (value == null || value.isBlank()) return userHome.resolve(".caduceus");
        var values = new Values("CADUCEUS_HOME", com.fasterxml.jackson.databind.node.TextNode.valueOf(value),
                "environment variable " + EnvNames.HOME, false);
        return values.path(userHome).toAbsolutePath();
    }

    /**
     * The profile this process runs as ({@code CADUCEUS_PROFILE}, which {@code -p NAME} sets), if not
     * the default one; its name is the advertised model id unless {@code server.model_name} is set.
     */
    public Optional<String> profile() {
        return Optional.ofNullable(env.get(Profiles.VARIABLE)).map(String::strip)
                .filter(p -> !p.isEmpty() && !p.equals(Profiles.DEFAULT));
    }

    /** Reads, merges and validates every source. */
    public LoadedConfig load(Optional<Path> configFlag, List<Flag> flags) {
        Path home = home();
        Optional<Path> file = configFlag.map(p -> p.toAbsolutePath().normalize());
        if (file.isPresent() && !Files.isRegularFile(file.get()))
            throw new ConfigException("--config", "Config file " + file.get() + " (from --config) does not exist");
        if (file.isEmpty() && Files.isRegularFile(home.resolve("config.yaml"))) file = Optional.of(home.resolve("config.yaml"));
        DotEnv dotenv = DotEnv.read(home);
        var variables = dotenv.under(env);
        ConfigTree tree = file.map(f -> parse(f, variables)).orElseGet(ConfigTree::empty);
        for (EnvNames.Setting s : EnvNames.settings(variables)) {
            // The launcher may have merged .env into the environment already: same value, same file.
            var fromFile = s.value().equals(dotenv.values().get(s.variable())) && dotenv.file().isPresent();
            var source = fromFile ? "variable " + s.variable() + " in " + dotenv.file().get() : s.source();
            tree = tree.with(s.key(), s.value(), source);
        }
        for (Flag f : flags) tree = tree.with(f.key(), f.value(), "flag " + f.name());
        List<String> warnings = new ArrayList<>(dotenv.warnings());
        Map<String, Object> values = validate(tree);
        var merged = tree;
        profile().filter(p -> merged.node("server.model_name").isEmpty()).ifPresent(p -> values.put("server.model_name", p));
        return new LoadedConfig(PlatformConfig.from(home, file, values, tree, dotenv, variables, warnings), LoggingConfig.from(values),
                warnings);
    }

    private Map<String, Object> validate(ConfigTree tree) {
        Map<String, Object> values = new HashMap<>();
        for (ConfigKeys.Key key : ConfigKeys.KEYS.values()) {
            Optional<JsonNode> node = tree.node(key.name());
            if (node.isPresent()) {
                var v = new Values(key.name(), node.get(), tree.source(key.name()), key.secret());
                values.put(key.name(), key.convert(v, userHome));
            } else if (key.defaultValue() != null) {
                values.put(key.name(), key.defaultValue());
            }
        }
        return values;
    }

    private static ConfigTree parse(Path file, Map<String, String> variables) {
        YAMLMapper mapper = YAMLMapper.builder().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build();
        JsonNode root;
        try {
            root = mapper.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            String why = e.getOriginalMessage() == null ? e.getClass().getSimpleName() : e.getOriginalMessage().lines()
                    .findFirst().orElse("").trim();
            throw new ConfigException("", "Cannot parse " + file + where + ": " + why);
        } catch (IOException e) {
            throw new ConfigException("", "Cannot read " + file + ": " + e.getMessage());
        }
        if (root == null || root.isMissingNode() || root.isNull()) return ConfigTree.empty();
        if (!(root instanceof ObjectNode object))
            throw new ConfigException("", "Cannot use " + file + ": the top level must be a mapping of sections");
        return HermesLayout.apply(ConfigTree.of(EnvReferences.expand(object, variables, file.toString()), file.toString()));
    }
}
