package dev.caduceus.platform.host.plugin;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Decides which plugin jars run. A plugin runs when it passes all four lists:
 * config {@code plugins.disabled}, config {@code plugins.enabled} (an allow-list once non-empty), and
 * PF4J's {@code disabled.txt} and {@code enabled.txt} (an allow-list once non-empty) in the plugin
 * folder its jar sits in. A listed id that matches no jar (in that folder, for the files) is an
 * error. The files are only read, never rewritten.
 *
 * <p>Immutable once made; thread-safe.
 */
public final class PluginSelection {

    /**
     * Whether one plugin runs.
     *
     * @param reason why it is off (for example {@code disabled by plugins.disabled in config}); null when enabled
     */
    public record Decision(String id, boolean enabled, String reason) {
        public Decision {
            requireNonNull(id, "id");
            if (enabled != (reason == null))
                throw new IllegalArgumentException("a reason is given exactly when disabled");
        }
    }

    private final Map<String, Decision> decisions;

    private PluginSelection(Map<String, Decision> decisions) {
        this.decisions = decisions;
    }

    /**
     * Decides for every scanned plugin.
     *
     * @param pluginRoots    each plugin id found, mapped to the folder its jar is in
     * @param roots          every plugin folder (its {@code enabled.txt}/{@code disabled.txt} are read)
     * @param configEnabled  {@code plugins.enabled}; empty means "all"
     * @param configDisabled {@code plugins.disabled}
     * @throws PluginBootException when a list names an id that matches no jar
     */
    public static PluginSelection decide(Map<String, Path> pluginRoots, List<Path> roots,
                                         List<String> configEnabled, List<String> configDisabled) {
        var all = pluginRoots.keySet();
        requireKnown("plugins.enabled in config", configEnabled, all);
        requireKnown("plugins.disabled in config", configDisabled, all);
        var rules = new ArrayList<Rule>();
        rules.add(new Rule(id -> configDisabled.contains(id) ? "disabled by plugins.disabled in config" : null));
        rules.add(new Rule(id -> !configEnabled.isEmpty() && !configEnabled.contains(id)
                ? "not in plugins.enabled in config" : null));
        for (var root : roots) {
            var inRoot = new TreeSet<String>();
            pluginRoots.forEach((id, r) -> { if (r.equals(root)) inRoot.add(id); });
            var disabledFile = root.resolve("disabled.txt");
            var enabledFile = root.resolve("enabled.txt");
            var disabled = readList(disabledFile);
            var enabled = readList(enabledFile);
            requireKnown(disabledFile.toString(), disabled, inRoot);
            requireKnown(enabledFile.toString(), enabled, inRoot);
            rules.add(new Rule(id -> inRoot.contains(id) && disabled.contains(id)
                    ? "listed in " + disabledFile : null));
            rules.add(new Rule(id -> inRoot.contains(id) && !enabled.isEmpty() && !enabled.contains(id)
                    ? "not in " + enabledFile : null));
        }
        var decisions = new TreeMap<String, Decision>();
        for (var id : all) {
            String reason = null;
            for (var rule : rules) if (reason == null) reason = rule.why().apply(id);
            decisions.put(id, new Decision(id, reason == null, reason));
        }
        return new PluginSelection(decisions);
    }

    /** One reason a plugin may be off; answers null when it does not apply. */
    private record Rule(java.util.function.Function<String, String> why) {}

    private static void requireKnown(String list, Collection<String> listed, Set<String> known) {
        for (var id : listed)
            if (!known.contains(id))
                throw new PluginBootException(list + " names plugin '" + id
                        + "', but no plugin jar has that id (found: " + String.join(", ", new TreeSet<>(known)) + ")");
    }

    /** PF4J's format: one id per line; blank lines and lines starting with '#' are ignored. */
    private static List<String> readList(Path file) {
        if (!Files.isRegularFile(file)) return List.of();
        try {
            return Files.readAllLines(file).stream()
                    .map(String::trim)
                    .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** The decision for {@code id}; throws for an id that was not scanned. */
    public Decision decision(String id) {
        var decision = decisions.get(id);
        if (decision == null) throw new IllegalArgumentException("unknown plugin id: " + id);
        return decision;
    }

    /** Whether {@code id} runs; false for unknown ids. */
    public boolean isEnabled(String id) {
        var decision = decisions.get(id);
        return decision != null && decision.enabled();
    }

    /** Every decision, ordered by id. */
    public List<Decision> decisions() {
        return List.copyOf(decisions.values());
    }
}
