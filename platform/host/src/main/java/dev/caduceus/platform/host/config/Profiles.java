package dev.caduceus.platform.host.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Profiles, as the seed has them: a profile is a whole state directory of its own,
 * {@code $CADUCEUS_HOME/profiles/NAME/} (config.yaml, .env, database, key, plugins folder; its
 * workspace beside it), chosen per process with {@code -p NAME}, {@code --profile NAME} or
 * {@code CADUCEUS_PROFILE}. The profile {@code default} is {@code $CADUCEUS_HOME} itself. Stateless.
 */
public final class Profiles {
    /** The variable that names the profile (and that {@code -p} sets for the rest of the process). */
    public static final String VARIABLE = "CADUCEUS_PROFILE";
    /** The profile that is the state directory itself. */
    public static final String DEFAULT = "default";
    /** Where profiles live, under the base state directory. */
    public static final String DIRECTORY = "profiles";
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");

    private Profiles() {}

    /**
     * Checks a profile name: lower-case letters, digits, {@code -} and {@code _}, starting with a
     * letter or digit, at most 64 characters (it becomes a directory and a model id).
     *
     * @throws IllegalArgumentException naming the rule
     */
    public static String validName(String name) {
        if (name == null || !NAME.matcher(name).matches())
            throw new IllegalArgumentException("'" + name + "' is not a profile name: use lower-case letters, digits,"
                    + " '-' and '_', starting with a letter or digit, at most 64 characters");
        return name;
    }

    /** The state directory of {@code profile} under the base one. */
    public static Path home(Path base, String profile) {
        return profile.equals(DEFAULT) ? base : base.resolve(DIRECTORY).resolve(validName(profile));
    }

    /**
     * {@code env} as a process running as {@code profile} sees it: {@code CADUCEUS_HOME} is the
     * profile's directory and {@code CADUCEUS_PROFILE} its name; unchanged for the default profile.
     */
    public static Map<String, String> environment(Map<String, String> env, Path base, String profile) {
        if (profile.equals(DEFAULT)) {
            var copy = new HashMap<>(env);
            copy.remove(VARIABLE);
            return Map.copyOf(copy);
        }
        var copy = new HashMap<>(env);
        copy.put(EnvNames.HOME, home(base, profile).toString());
        copy.put(VARIABLE, profile);
        return Map.copyOf(copy);
    }

    /** The profiles that exist under {@code base}, sorted; {@code default} first. */
    public static List<String> list(Path base) throws IOException {
        var names = new ArrayList<String>();
        names.add(DEFAULT);
        var dir = base.resolve(DIRECTORY);
        if (!Files.isDirectory(dir)) return names;
        try (Stream<Path> children = Files.list(dir)) {
            children.filter(Files::isDirectory).map(p -> p.getFileName().toString())
                    .filter(n -> NAME.matcher(n).matches() && !n.equals(DEFAULT)).sorted().forEach(names::add);
        }
        return names;
    }

    /** Whether {@code profile} exists under {@code base} (the default one always does). */
    public static boolean exists(Path base, String profile) {
        return profile.equals(DEFAULT) || Files.isDirectory(home(base, profile));
    }

    /** The profile named by {@code CADUCEUS_PROFILE} in {@code env}, if any. */
    public static Optional<String> fromEnvironment(Map<String, String> env) {
        return Optional.ofNullable(env.get(VARIABLE)).map(String::strip).filter(s -> !s.isEmpty());
    }
}
