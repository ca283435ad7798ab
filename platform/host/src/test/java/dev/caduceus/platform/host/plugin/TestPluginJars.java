package dev.caduceus.platform.host.plugin;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaFileObject;
import javax.tools.ToolProvider;

/**
 * Builds real plugin jars for tests: compiles Java sources against the test class path (api-spi and
 * Jackson), writes the PF4J manifest, the {@code PlatformPlugin} services file and any resources.
 *
 * <pre>{@code
 * Path jar = TestPluginJars.plugin("hello").version("1.0.0")
 *         .source("dev.example.HelloPlugin", "package dev.example; public class HelloPlugin implements dev.caduceus.spi.PlatformPlugin {}")
 *         .services("dev.example.HelloPlugin")
 *         .resource("db/migration/hello/sqlite/V1__init.sql", "create table hello(id integer);")
 *         .writeTo(pluginsDir);
 * }</pre>
 */
public final class TestPluginJars {
    private TestPluginJars() {}

    /** Starts a jar whose manifest says {@code Plugin-Id: id}, version 1.0.0 unless changed. */
    public static Builder plugin(String id) {
        return new Builder(id);
    }

    /** Collects the jar's content; {@link #writeTo} compiles and writes it. */
    public static final class Builder {
        private final Map<String, String> manifest = new LinkedHashMap<>();
        private final Map<String, String> sources = new LinkedHashMap<>();
        private final Map<String, byte[]> resources = new LinkedHashMap<>();
        private final List<String> services = new ArrayList<>();
        private String fileName;
        private boolean servicesFile;

        private Builder(String id) {
            if (id != null) manifest.put("Plugin-Id", id);
            manifest.put("Plugin-Version", "1.0.0");
            fileName = (id == null ? "no-id" : id) + ".jar";
        }

        public Builder version(String version) { return attribute("Plugin-Version", version); }

        /** PF4J syntax: {@code a, b@>=1.0.0, c?} */
        public Builder dependencies(String dependencies) { return attribute("Plugin-Dependencies", dependencies); }

        /** A version constraint on the platform, {@code >=0.1.0}. */
        public Builder requires(String requires) { return attribute("Plugin-Requires", requires); }

        /** Any manifest attribute; a null value removes it. */
        public Builder attribute(String name, String value) {
            if (value == null) manifest.remove(name);
            else manifest.put(name, value);
            return this;
        }

        /** A Java source compiled into the jar. */
        public Builder source(String className, String code) {
            sources.put(className, code);
            return this;
        }

        /** The lines of {@code META-INF/services/dev.caduceus.spi.PlatformPlugin}. */
        public Builder services(String... classNames) {
            servicesFile = true;
            services.addAll(List.of(classNames));
            return this;
        }

        public Builder resource(String path, String text) {
            return resource(path, text.getBytes(StandardCharsets.UTF_8));
        }

        public Builder resource(String path, byte[] bytes) {
            resources.put(path, bytes.clone());
            return this;
        }

        /** Bundles a copy of a class from the test class path, as a badly built plugin would. */
        public Builder bundleCopyOf(Class<?> type) {
            var path = type.getName().replace('.', '/') + ".class";
            try (var in = type.getClassLoader().getResourceAsStream(path)) {
                if (in == null) throw new IllegalArgumentException("no class file for " + type);
                return resource(path, in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** The jar's file name, {@code <id>.jar} by default. */
        public Builder fileName(String name) {
            this.fileName = name;
            return this;
        }

        /** Compiles the sources and writes the jar into {@code dir}; returns its path. */
        public Path writeTo(Path dir) {
            try {
                Files.createDirectories(dir);
                var classes = compile();
                var mf = new Manifest();
                mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
                manifest.forEach((k, v) -> mf.getMainAttributes().putValue(k, v));
                var jar = dir.resolve(fileName);
                try (var out = new JarOutputStream(Files.newOutputStream(jar), mf)) {
                    for (var e : classes.entrySet()) put(out, e.getKey(), e.getValue());
                    if (servicesFile)
                        put(out, "META-INF/services/dev.caduceus.spi.PlatformPlugin",
                                (String.join("\n", services) + "\n").getBytes(StandardCharsets.UTF_8));
                    for (var e : resources.entrySet()) put(out, e.getKey(), e.getValue());
                }
                return jar;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static void deleteTree(Path root) throws IOException {
            try (var walk = Files.walk(root)) {
                for (var path : walk.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(path);
            }
        }

        private static void put(JarOutputStream out, String name, byte[] bytes) throws IOException {
            out.putNextEntry(new JarEntry(name));
            out.write(bytes);
            out.closeEntry();
        }

        private Map<String, byte[]> compile() throws IOException {
            var result = new LinkedHashMap<String, byte[]>();
            if (sources.isEmpty()) return result;
            var work = Files.createTempDirectory("test-plugin-src");
            var out = Files.createDirectories(work.resolve("classes"));
            var files = new ArrayList<Path>();
            for (var e : sources.entrySet()) {
                var file = work.resolve("src").resolve(e.getKey().replace('.', '/') + ".java");
                Files.createDirectories(file.getParent());
                Files.writeString(file, e.getValue());
                files.add(file);
            }
            var compiler = ToolProvider.getSystemJavaCompiler();
            var diagnostics = new DiagnosticCollector<JavaFileObject>();
            try (var fm = compiler.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
                var options = List.of("--release", "21", "-proc:none", "-classpath",
                        System.getProperty("java.class.path"), "-d", out.toString());
                var ok = compiler.getTask(new java.io.StringWriter(), fm, diagnostics, options, null,
                        fm.getJavaFileObjectsFromPaths(files)).call();
                if (!ok) {
                    var text = new ByteArrayOutputStream();
                    diagnostics.getDiagnostics().forEach(d -> text.writeBytes((d + "\n").getBytes(StandardCharsets.UTF_8)));
                    throw new IllegalStateException("test plugin does not compile:\n" + text);
                }
            }
            try (var walk = Files.walk(out)) {
                for (var f : walk.filter(Files::isRegularFile).sorted().toList())
                    result.put(out.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
            } finally {
                deleteTree(work); // thousands of these were left in /tmp by earlier runs
            }
            return result;
        }
    }
}
