package dev.caduceus.platform.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Properties;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * Plugin jars for {@link TestHost}, made at test time from what the test's class path holds. During
 * {@code mvn test} a reactor module resolves to its {@code target/classes} directory, which has the
 * plugin's classes and services file but no manifest: this writes the jar the plugin's POM would, with
 * the manifest entries of {@code plugins/pom.xml} ({@code Plugin-Id} is the module's directory name,
 * as every plugin POM sets it). plugin-support is not bundled: the plugin's class loader falls back to
 * the host's copy. A module that resolves to its packaged jar (after {@code package}) is used as built.
 * Stateless.
 */
final class PluginJars {
    private static final String SERVICES = PluginJarAssertions.SERVICES;

    private PluginJars() {}

    /**
     * Where the class path holds plugin {@code id}: a {@code …/<id>/target/classes} directory with a
     * services file, or a jar whose manifest says {@code Plugin-Id: <id>}.
     */
    static Path locate(String id) {
        var seen = new ArrayList<String>();
        for (var entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.isEmpty()) continue;
            var path = Path.of(entry).toAbsolutePath().normalize();
            if (Files.isDirectory(path)) {
                if (!Files.isRegularFile(path.resolve(SERVICES))) continue;
                seen.add(path.toString());
                var module = path.getParent() == null ? null : path.getParent().getParent();
                if (path.endsWith(Path.of("target", "classes")) && module != null
                        && module.getFileName().toString().equals(id)) return path;
            } else if (entry.endsWith(".jar") && Files.isRegularFile(path)) {
                var pluginId = pluginId(path);
                if (pluginId == null) continue;
                seen.add(path + " (" + pluginId + ")");
                if (pluginId.equals(id)) return path;
            }
        }
        throw new IllegalArgumentException("plugin " + id + " is not on the test class path; add a test-scoped "
                + "dependency on its artifact (plugins seen: " + seen + ")");
    }

    /** Writes plugin {@code id} from {@code source} (a classes directory or a plugin jar) to {@code jar}. */
    static void write(String id, Path source, Path jar) {
        try {
            if (Files.isRegularFile(source)) {
                Files.copy(source, jar, StandardCopyOption.REPLACE_EXISTING);
                return;
            }
            if (!Files.isRegularFile(source.resolve(SERVICES)))
                throw new IllegalArgumentException(source + " has no " + SERVICES + ": not a plugin's classes");
            try (var out = new JarOutputStream(Files.newOutputStream(jar), manifest(id));
                 var files = Files.walk(source)) {
                for (var file : files.sorted().toList()) {
                    var name = source.relativize(file).toString().replace(File.separatorChar, '/');
                    if (name.isEmpty() || name.equals(JarFile.MANIFEST_NAME)) continue;
                    if (Files.isDirectory(file)) {
                        out.putNextEntry(new JarEntry(name + "/"));
                    } else {
                        out.putNextEntry(new JarEntry(name));
                        Files.copy(file, out);
                    }
                    out.closeEntry();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot build the plugin jar of " + id + " from " + source, e);
        }
    }

    private static Manifest manifest(String id) throws IOException {
        var stamp = new Properties();
        try (var in = PluginJars.class.getResourceAsStream("testhost.properties")) {
            if (in == null) throw new IOException("testhost.properties is missing from the testkit");
            stamp.load(in);
        }
        var manifest = new Manifest();
        var main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue("Plugin-Id", id);
        main.putValue("Plugin-Version", stamp.getProperty("plugin.version"));
        main.putValue("Plugin-Provider", stamp.getProperty("plugin.provider"));
        main.putValue("Plugin-Dependencies", "");
        return manifest;
    }

    private static String pluginId(Path jar) {
        try (var file = new JarFile(jar.toFile())) {
            var manifest = file.getManifest();
            return manifest == null ? null : manifest.getMainAttributes().getValue("Plugin-Id");
        } catch (IOException e) {
            return null;
        }
    }
}
