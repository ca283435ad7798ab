package dev.caduceus.platform.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.regex.Pattern;

/**
 * Checks a built plugin jar against the plugin jar rules: manifest
 * {@code Plugin-Id} and semver {@code Plugin-Version}, one services entry naming a class inside the
 * jar, no bundled SPI, Jackson or SLF4J, migrations only under the plugin's own id.
 */
public final class PluginJarAssertions {
    static final String SERVICES = "META-INF/services/dev.caduceus.spi.PlatformPlugin";
    private static final Pattern SEMVER = Pattern.compile(
            "\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?");
    private static final List<String> FORBIDDEN = List.of("dev/caduceus/spi/", "com/fasterxml/", "org/slf4j/");

    private PluginJarAssertions() {}

    /** Every rule violated by {@code jar}; empty when it is a valid plugin jar. */
    public static List<String> problems(Path jar) throws IOException {
        var problems = new ArrayList<String>();
        try (var file = new JarFile(jar.toFile())) {
            var manifest = file.getManifest();
            var attributes = manifest == null ? null : manifest.getMainAttributes();
            var id = attributes == null ? null : attributes.getValue("Plugin-Id");
            var version = attributes == null ? null : attributes.getValue("Plugin-Version");
            if (id == null || id.isBlank()) problems.add("manifest has no Plugin-Id");
            if (version == null || !SEMVER.matcher(version).matches())
                problems.add("Plugin-Version is not semver: " + version);
            var services = file.getJarEntry(SERVICES);
            if (services == null) {
                problems.add("no " + SERVICES);
            } else {
                var lines = new String(file.getInputStream(services).readAllBytes(), StandardCharsets.UTF_8)
                        .lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
                if (lines.size() != 1) problems.add(SERVICES + " must name exactly one class, names " + lines);
                for (var name : lines)
                    if (file.getJarEntry(name.replace('.', '/') + ".class") == null)
                        problems.add(SERVICES + " names " + name + ", which is not in the jar");
            }
            var entries = file.entries();
            while (entries.hasMoreElements()) {
                var name = entries.nextElement().getName();
                for (var prefix : FORBIDDEN)
                    if (name.startsWith(prefix)) problems.add("forbidden entry " + name);
                var own = "db/migration/" + id + "/";
                var ancestorDirectory = name.endsWith("/") && own.startsWith(name);
                if (name.startsWith("db/migration/") && id != null && !name.startsWith(own) && !ancestorDirectory)
                    problems.add("migration outside db/migration/" + id + "/: " + name);
            }
        }
        return problems;
    }

    /** Throws {@link AssertionError} listing every problem of {@code jar}. */
    public static void assertValidPluginJar(Path jar) throws IOException {
        var problems = problems(jar);
        if (!problems.isEmpty()) throw new AssertionError(jar.getFileName() + ": " + String.join("; ", problems));
    }
}
