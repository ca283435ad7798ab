package dev.caduceus.distribution;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin examples of the README's "Writing a plugin", as a newcomer meets them: each Java block
 * is compiled with exactly the classpath its shell block states ({@code lib/*} of the distribution),
 * packed with the service file and manifest that block writes, dropped into {@code plugins/}, and
 * used: the model is offered the tool and its result comes back; the route answers.
 */
class ReadmeExamplesIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Path README = Path.of(System.getProperty("user.dir")).getParent().resolve("README.md");
    private static final Pattern BLOCK = Pattern.compile("```(java|sh)\n(.*?)```", Pattern.DOTALL);

    @TempDir Path tmp;

    /** One example: its source and what its shell block says. */
    record Example(String className, String source, String pluginId, String version, String classpath) {}

    static List<Example> examples() throws Exception {
        var text = Files.readString(README);
        var section = text.substring(text.indexOf("## Writing a plugin"));
        section = section.substring(0, section.indexOf("\n## ", 5) < 0 ? section.length() : section.indexOf("\n## ", 5));
        var examples = new ArrayList<Example>();
        var m = BLOCK.matcher(section);
        String source = null;
        while (m.find()) {
            if (m.group(1).equals("java")) {
                source = m.group(2);
            } else if (source != null) {
                var sh = m.group(2);
                var pkg = find(source, "package ([\\w.]+);");
                var cls = find(source, "public final class (\\w+)");
                assertTrue(sh.contains("echo " + pkg + "." + cls + " > "), "the service file names the class: " + sh);
                var cp = find(sh, "javac --release 21 -cp \"([^\"]+)\"");
                examples.add(new Example(pkg + "." + cls, source, find(sh, "Plugin-Id: ([\\w-]+)"),
                        find(sh, "Plugin-Version: ([\\w.]+)"), cp));
                source = null;
            }
        }
        return examples;
    }

    private static String find(String text, String regex) {
        var m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), "README: no " + regex + " in\n" + text);
        return m.group(1);
    }

    /** Compiles and jars {@code example} as its shell block does; returns the jar. */
    private Path build(Example example, Path pluginsDir) throws Exception {
        assertEquals("distribution/target/caduceus/lib/*", example.classpath(), "the classpath the README states");
        var work = Files.createDirectories(tmp.resolve(example.pluginId()));
        var simple = example.className().substring(example.className().lastIndexOf('.') + 1);
        var src = Files.writeString(work.resolve(simple + ".java"), example.source());
        var classes = Files.createDirectories(work.resolve("classes"));
        var bin = Path.of(System.getProperty("java.home"), "bin");
        run(work, bin.resolve("javac").toString(), "--release", "21", "-cp",
                Caduceus.DIST.resolve("lib").toAbsolutePath() + "/*", "-d", classes.toString(), src.toString());
        var services = Files.createDirectories(classes.resolve("META-INF/services"));
        Files.writeString(services.resolve("dev.caduceus.spi.PlatformPlugin"), example.className() + "\n");
        var manifest = Files.writeString(work.resolve("plugin.mf"),
                "Plugin-Id: " + example.pluginId() + "\nPlugin-Version: " + example.version() + "\n");
        var jar = Files.createDirectories(pluginsDir).resolve(example.pluginId() + "-" + example.version() + ".jar");
        run(work, bin.resolve("jar").toString(), "--create", "--file", jar.toString(), "--manifest", manifest.toString(),
                "-C", classes.toString(), ".");
        return jar;
    }

    private static void run(Path dir, String... command) throws Exception {
        var process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        var output = new String(process.getInputStream().readAllBytes(), UTF_8);
        assertEquals(0, process.waitFor(), String.join(" ", command) + "\n" + output);
    }

    @Test
    void theReadmesPluginsCompileAsWrittenAndWork() throws Exception {
        var examples = examples();
        assertEquals(List.of("weather", "hello"), examples.stream().map(Example::pluginId).toList());
        var home = Files.createDirectories(tmp.resolve("home"));
        for (var example : examples) build(example, home.resolve("plugins"));
        try (var upstream = ScriptedUpstream.start()) {
            upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_w", "weather", "{\"city\":\"Oslo\"}")));
            upstream.enqueue(Turn::quotingLastToolResult);
            try (var server = Caduceus.serve(home, Caduceus.upstreamEnv(upstream))) {
                var headers = new HashMap<>(Caduceus.KEY_AUTH);
                headers.put("Content-Type", "application/json");
                var chat = server.send("POST", "/v1/chat/completions",
                        "{\"messages\":[{\"role\":\"user\",\"content\":\"Weather in Oslo?\"}]}", headers);
                assertEquals(200, chat.statusCode(), chat.body());
                var offered = new ArrayList<String>();
                upstream.chatRequests().getFirst().body().path("tools")
                        .forEach(t -> offered.add(t.at("/function/name").asText()));
                assertTrue(offered.contains("weather"), "offered with the default toolsets: " + offered);
                var answer = JSON.readTree(chat.body()).at("/choices/0/message/content").asText();
                assertTrue(answer.contains("\"forecast\":\"sunny\"") && answer.contains("Oslo"), answer);

                var hello = server.get("/v1/hello", Caduceus.KEY_AUTH);
                assertEquals(200, hello.statusCode(), hello.body());
                assertEquals("hello", JSON.readTree(hello.body()).path("message").asText());
            }
        }
    }

    @Test
    void theDistributionShipsTheSpisSourcesAndJavadocAndTheSupportSourcesForPluginAuthors() throws Exception {
        var sdk = Caduceus.DIST.resolve("sdk");
        try (var listing = Files.list(sdk)) {
            var jars = listing.map(p -> p.getFileName().toString()).sorted().toList();
            assertEquals(3, jars.size(), jars.toString());
            try (var javadoc = new java.util.jar.JarFile(sdk.resolve(jars.get(0)).toFile());
                 var sources = new java.util.jar.JarFile(sdk.resolve(jars.get(1)).toFile());
                 var support = new java.util.jar.JarFile(sdk.resolve(jars.get(2)).toFile())) {
                assertTrue(jars.get(0).startsWith("caduceus-api-spi-") && jars.get(0).endsWith("-javadoc.jar")
                        && javadoc.getEntry("index.html") != null, jars.get(0));
                assertTrue(jars.get(1).startsWith("caduceus-api-spi-") && jars.get(1).endsWith("-sources.jar")
                        && sources.getEntry("dev/caduceus/spi/tool/ToolSpec.java") != null, jars.get(1));
                assertTrue(jars.get(2).startsWith("caduceus-plugin-support-") && jars.get(2).endsWith("-sources.jar")
                        && support.getEntry("dev/caduceus/support/json/ToolJson.java") != null, jars.get(2));
            }
        }
    }

    @Test
    void disablingTheToolPluginThatAgentToolsetsNamesIsOneEdit() throws Exception {
        var home = Files.createDirectories(tmp.resolve("home2"));
        build(examples().getFirst(), home.resolve("plugins"));
        var env = new HashMap<String, String>(Caduceus.KEY_ENV);
        env.put("CADUCEUS__AGENT__TOOLSETS", "hermes-api-server,weather");
        env.put("CADUCEUS__PLUGINS__DISABLED", "weather");
        try (var server = Caduceus.serve(home, env)) {
            assertTrue(server.stderr().contains("agent.toolsets names 'weather', which no started plugin provides"),
                    server.stderr());
        }
        var typo = new HashMap<String, String>(Caduceus.KEY_ENV);
        typo.put("CADUCEUS__AGENT__TOOLSETS", "hermes-api-server,wether");
        try (var process = Caduceus.launch(home, typo, "serve")) {
            assertEquals(2, process.awaitExit(), "with every plugin started, an unknown toolset is still a typo");
            assertTrue(process.stderr().contains("Unknown toolset 'wether'"), process.stderr());
        }
    }
}
