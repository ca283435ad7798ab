package dev.caduceus.platform.host.plugin;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.pf4j.DefaultVersionManager;
import org.pf4j.ManifestPluginDescriptorFinder;
import org.pf4j.PluginDescriptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Boot step 3, first half: lists {@code *.jar} in each plugin root (the files PF4J's jar repository
 * will see) and reads every manifest before PF4J does, so a duplicate {@code Plugin-Id} fails naming
 * both files instead of PF4J keeping whichever copy it met first (which depends on file modification times).
 */
final class PluginScanner {
    private static final Logger log = LoggerFactory.getLogger(PluginScanner.class);

    private PluginScanner() {}

    /** What reading one jar gave. */
    sealed interface Outcome permits Scanned, Rejected {}

    /** A jar whose manifest names a plugin. */
    record Scanned(String id, String version, Path jar, Path root, PluginDescriptor descriptor)
            implements Outcome {}

    /** A jar that cannot be a plugin, and why. */
    record Rejected(Path jar, String reason) implements Outcome {}

    record Result(List<Scanned> plugins, List<Rejected> rejected) {
        Result {
            plugins = List.copyOf(plugins);
            rejected = List.copyOf(rejected);
        }
    }

    /** Scans {@code roots}; throws on a duplicate plugin id, whatever the mode. */
    static Result scan(List<Path> roots) {
        var plugins = new ArrayList<Scanned>();
        var rejected = new ArrayList<Rejected>();
        var byId = new HashMap<String, Scanned>();
        for (var root : roots) {
            for (var jar : jars(root)) {
                switch (read(jar, root)) {
                    case Rejected r -> rejected.add(r);
                    case Scanned s -> {
                        var other = byId.putIfAbsent(s.id(), s);
                        if (other != null)
                            throw new PluginBootException("duplicate Plugin-Id '" + s.id() + "' in "
                                    + other.jar() + " and " + jar + "; remove one of them");
                        plugins.add(s);
                    }
                }
            }
        }
        return new Result(plugins, rejected);
    }

    private static List<Path> jars(Path root) {
        if (!Files.isDirectory(root)) {
            log.warn("Plugin folder {} does not exist; no plugins from there", root);
            return List.of();
        }
        try (var files = Files.list(root)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".jar") && Files.isRegularFile(f))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list plugin folder " + root, e);
        }
    }

    private static Outcome read(Path jar, Path root) {
        PluginDescriptor descriptor;
        try {
            descriptor = new ManifestPluginDescriptorFinder().find(jar);
        } catch (RuntimeException e) {
            return new Rejected(jar, "cannot read the manifest: " + e.getMessage());
        }
        var id = descriptor.getPluginId();
        var version = descriptor.getVersion();
        if (id == null || id.isBlank()) {
            return new Rejected(jar, "the manifest has no Plugin-Id");
        }
        if (version == null || version.isBlank()) {
            return new Rejected(jar, "the manifest has no Plugin-Version");
        }
        try {
            new DefaultVersionManager().compareVersions(version, version);
        } catch (RuntimeException e) {
            return new Rejected(jar, "Plugin-Version '" + version + "' is not a semantic version");
        }
        return new Scanned(id.trim(), version.trim(), jar, root, descriptor);
    }
}
