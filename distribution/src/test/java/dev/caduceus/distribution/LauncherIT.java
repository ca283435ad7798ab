package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What bin/caduceus adds to a start: SQLite's native library comes from the distribution's
 * {@code native/} folder when it has this platform's, and is extracted by sqlite-jdbc into
 * {@code $CADUCEUS_HOME/tmp} as before when it does not; secret variables reach the JVM through a
 * file it deletes, not through its environment; its memory defaults (the serial collector, a 128 MiB
 * heap) give way to a collector or heap size named in {@code JAVA_OPTS} or {@code JDK_JAVA_OPTIONS}.
 */
class LauncherIT {
    @TempDir Path home;

    @Test
    void secretVariablesReachThePlatformButNotTheJvmsEnvironment() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "needs /proc");
        var upstreamKey = "sk-up 'quoted' \"double\" = $HOME \\ end";
        var multiLine = "first line\nexport FAKE_KEY=not-a-variable\nlast";
        try (var upstream = ScriptedUpstream.start()) {
            upstream.setDefault(Turn.text("ok"));
            var env = new HashMap<>(Caduceus.KEY_ENV);
            env.put("OPENAI_API_KEY", upstreamKey);
            env.put("OPENAI_BASE_URL", upstream.baseUrl());
            env.put("CADUCEUS_MODEL", "scripted-model");
            env.put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
            env.put("SOME_SERVICE_TOKEN", multiLine);
            env.put("CADUCEUS__PLUGINS__TOOL_WEB__PASSWORD_HINT", "p");
            env.put("PLAIN_SETTING", "stays");
            try (var server = Caduceus.serve(home, env)) {
                var environ = new String(Files.readAllBytes(Path.of("/proc/" + server.process.pid() + "/environ")),
                        StandardCharsets.UTF_8);
                for (var secret : List.of("API_SERVER_KEY", Caduceus.TEST_KEY, "OPENAI_API_KEY", upstreamKey,
                        "SOME_SERVICE_TOKEN", "first line", "CADUCEUS__PLUGINS__TOOL_WEB__PASSWORD_HINT"))
                    assertFalse(environ.contains(secret), "/proc/<pid>/environ holds " + secret);
                assertTrue(environ.contains("\0PLAIN_SETTING=stays\0"), "other variables stay");
                assertTrue(environ.contains("CADUCEUS_HOME=" + home), "CADUCEUS_HOME is not a secret");

                assertEquals(200, server.get("/v1/models", Caduceus.KEY_AUTH).statusCode(), "API_SERVER_KEY is in force");
                assertEquals(401, server.get("/v1/models", Map.of()).statusCode());
                var chat = server.send("POST", "/v1/chat/completions",
                        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                        Map.of("Authorization", "Bearer " + Caduceus.TEST_KEY, "Content-Type", "application/json"));
                assertEquals(200, chat.statusCode(), chat.body());
                assertEquals("Bearer " + upstreamKey, upstream.chatRequests().getLast().headers().get("authorization"),
                        "OPENAI_API_KEY reached the provider unchanged");
                try (var files = Files.list(home.resolve("tmp"))) {
                    var left = files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("secrets.")).toList();
                    assertEquals(List.of(), left, "the secrets file is deleted at start");
                }
            }
        }
    }

    @Test
    void aSecretsFileTheLauncherCannotWriteStopsTheStartWithAClearMessage() throws Exception {
        // The launcher cannot write into a tmp that is not a directory.
        Files.writeString(home.resolve("tmp"), "not a directory");
        try (var process = Caduceus.launch(home, Caduceus.KEY_ENV, "serve")) {
            assertEquals(2, process.awaitExit());
            assertTrue(process.stderr().contains("caduceus: cannot write " + home.resolve("tmp/secrets.")),
                    process.stderr());
            assertFalse(process.stderr().contains(Caduceus.TEST_KEY), process.stderr());
        }
    }

    @Test
    void theBundledSqliteLibraryIsUsedSoNothingIsExtractedAtStart() throws Exception {
        assumeTrue(Files.isDirectory(Caduceus.DIST.resolve("native").resolve(sqliteFolder())),
                "no bundled SQLite library for " + sqliteFolder());
        try (var server = Caduceus.serve(home, Caduceus.KEY_ENV)) {
            assertEquals(200, server.get("/health/detailed", Caduceus.KEY_AUTH).statusCode());
            assertEquals(List.of(), extractedLibraries(), "sqlite-jdbc extracted its library anyway");
        }
    }

    @Test
    void withoutTheBundledLibrarySqliteJdbcExtractsItsOwn(@TempDir Path copy) throws Exception {
        // A distribution without native/: the launcher script itself, the rest linked.
        Files.createDirectories(copy.resolve("bin"));
        Files.copy(Caduceus.DIST.resolve("bin/caduceus"), copy.resolve("bin/caduceus"));
        for (var dir : List.of("lib", "plugins", "conf"))
            Files.createSymbolicLink(copy.resolve(dir), Caduceus.DIST.resolve(dir).toAbsolutePath());
        try (var server = Caduceus.serve(copy, home, Map.of("API_SERVER_KEY", Caduceus.TEST_KEY,
                "CADUCEUS_AOT", "off"))) {
            assertEquals(200, server.get("/health/detailed", Caduceus.KEY_AUTH).statusCode());
            assertEquals(1, extractedLibraries().size(), "expected sqlite-jdbc's own extraction");
        }
    }

    @Test
    void theMemoryDefaultsApplyWhenNothingIsSaid() throws Exception {
        var flags = finalFlags(Map.of());
        assertEquals("true {command line}", flags.get("UseSerialGC"));
        assertEquals((128L << 20) + " {command line}", flags.get("MaxHeapSize"));
        assertEquals((32L << 20) + " {command line}", flags.get("InitialHeapSize"));
        assertEquals("1 {command line}", flags.get("NewRatio"));
        if (trimsTheNativeHeap()) {
            assertEquals("5000 {command line}", flags.get("TrimNativeHeapInterval"));
            assertEquals("0 {command line}", finalFlags(Map.of("JAVA_OPTS", "-XX:TrimNativeHeapInterval=0"))
                    .get("TrimNativeHeapInterval"), "JAVA_OPTS comes later and wins");
        }
    }

    @Test
    void theHeapTakesTransparentHugePagesWhereTheKernelGivesThemOnRequest() throws Exception {
        var setting = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
        boolean onRequest = Files.isReadable(setting) && Files.readString(setting).contains("[madvise]");
        assertEquals(onRequest ? "true {command line}" : "false {default}", finalFlags(Map.of()).get("UseTransparentHugePages"));
        if (onRequest)
            assertEquals("false {command line}", finalFlags(Map.of("JAVA_OPTS", "-XX:-UseTransparentHugePages"))
                    .get("UseTransparentHugePages"), "JAVA_OPTS comes later and wins");
    }

    /** The server starts with raised JIT thresholds; a batch run, bound by its throughput, with the JVM's own. */
    @Test
    void theJitThresholdsAreRaisedExceptForABatchRun() throws Exception {
        assertEquals("3.000000 {command line}", finalFlags(Map.of()).get("CompileThresholdScaling"));
        assertEquals("1.000000 {default}", finalFlags(Map.of(), "batch", "--help").get("CompileThresholdScaling"));
        try (var profile = Caduceus.launch(home, Map.of(), "profile", "create", "batch")) {
            assertEquals(0, profile.awaitExit(), profile.stderr());
        }
        assertEquals("1.000000 {default}", finalFlags(Map.of(), "-p", "batch", "batch", "--help").get("CompileThresholdScaling"));
        assertEquals("3.000000 {command line}", finalFlags(Map.of(), "-p", "batch", "--version").get("CompileThresholdScaling"),
                "a profile named batch is no batch run");
    }

    @Test
    void aHeapSizeInJavaOptsReplacesTheDefaultsAndLeavesTheCollectorToTheJvm() throws Exception {
        var flags = finalFlags(Map.of("JAVA_OPTS", "-Xmx300m"));
        assertEquals("314572800 {command line}", flags.get("MaxHeapSize"));
        assertFalse(flags.get("UseSerialGC").endsWith("{command line}"), "the launcher still chose the collector");
        assertFalse(flags.get("InitialHeapSize").endsWith("{command line}"), "the launcher still passed -Xms");
        assertFalse(flags.get("NewRatio").endsWith("{command line}"), "the launcher still split the heap");
        // -Xms above the default -Xmx would stop the JVM if the launcher's -Xmx were still passed
        flags = finalFlags(Map.of("JAVA_OPTS", "-Xms256m"));
        assertEquals("268435456 {command line}", flags.get("InitialHeapSize"));
        assertTrue(size(flags.get("MaxHeapSize")) >= 256L << 20);
        flags = finalFlags(Map.of("JAVA_OPTS", "-XX:MaxRAMPercentage=5"));
        assertTrue(flags.get("MaxHeapSize").endsWith("{ergonomic}"), "the JVM sized the heap: " + flags.get("MaxHeapSize"));
    }

    @Test
    void aCollectorInJavaOptsOrJdkJavaOptionsReplacesTheSerialCollector() throws Exception {
        // two collectors on one command line stop the JVM ("conflicting collector combinations")
        var flags = finalFlags(Map.of("JAVA_OPTS", "-XX:+UseParallelGC"));
        assertEquals("true {command line}", flags.get("UseParallelGC"));
        assertEquals("false {default}", flags.get("UseSerialGC"));
        assertEquals(128L << 20, size(flags.get("MaxHeapSize")), "the heap default stays");
        flags = finalFlags(Map.of("JDK_JAVA_OPTIONS", "-XX:+UseParallelGC"));
        assertEquals("true {command line}", flags.get("UseParallelGC"));
        assertEquals("false {default}", flags.get("UseSerialGC"));
    }

    @Test
    void theDefaultHeapTakesAsManyRequestsNearTheBodyLimitAsMayRunAtOnce() throws Exception {
        // 10 at once (server.max_concurrent_runs' default) of a conversation just under the
        // 10,000,000-byte body limit, each several times its size in memory while handled, under the
        // launcher's 128 MiB heap: the bodies take turns for their share of the heap (a body waits
        // for room: server.body_memory_percent), every one is answered, and nothing of one request
        // stays behind once it has been answered (the finished runs kept findable hold no input).
        int concurrent = 10;
        var part = "x".repeat(20_000);
        var body = new StringBuilder("{\"messages\":[");
        for (int i = 0; body.length() < 9_900_000; i++)
            body.append(i == 0 ? "" : ",").append("{\"role\":\"").append(i % 2 == 0 ? "user" : "assistant")
                    .append("\",\"content\":\"").append(part).append("\"}");
        body.setLength(body.lastIndexOf(",{\"role\":\"assistant\""));
        body.append("]}");
        assertTrue(body.length() < 10_000_000 && body.length() > 9_850_000, "body of " + body.length());
        try (var upstream = ScriptedUpstream.start(); var http = java.net.http.HttpClient.newHttpClient()) {
            upstream.setDefault(Turn.text("ok"));
            try (var server = Caduceus.serve(home, Caduceus.upstreamEnv(upstream))) {
                var request = java.net.http.HttpRequest.newBuilder(server.awaitListening().resolve("/v1/chat/completions"))
                        .timeout(java.time.Duration.ofSeconds(120))
                        .header("Authorization", "Bearer " + Caduceus.TEST_KEY).header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body.toString())).build();
                var calls = new java.util.ArrayList<java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<String>>>();
                for (int i = 0; i < concurrent; i++)
                    calls.add(http.sendAsync(request, java.net.http.HttpResponse.BodyHandlers.ofString()));
                for (var call : calls) {
                    var response = call.get();
                    assertEquals(200, response.statusCode(), () -> response.body() + "\n" + server.stdout() + server.stderr());
                }
                assertEquals(concurrent, upstream.chatRequests().size());
                assertTrue(upstream.chatRequests().getLast().body().path("messages").size() > 400);
                assertFalse(server.stdout().contains("OutOfMemoryError"), server.stdout());
                assertFalse(server.stderr().contains("OutOfMemoryError"), server.stderr());
            }
        }
    }

    /** A line of -XX:+PrintFlagsFinal: "   size_t MaxHeapSize   = 134217728   {product} {command line}". */
    private static final Pattern FLAG = Pattern.compile(
            "^[ \\t]*\\S+[ \\t]+(\\w+)[ \\t]+:?=[ \\t]+(\\S+)[ \\t]+\\{[^}\\n]*\\}[ \\t]+(\\{[^}\\n]*\\})", Pattern.MULTILINE);

    /**
     * The JVM's final flags when {@code caduceus --version} runs with {@code env}: name to "value {origin}",
     * where the origin tells a flag the launcher or the user put on the command line from the JVM's own.
     */
    private Map<String, String> finalFlags(Map<String, String> env) throws Exception {
        return finalFlags(env, "--version");
    }

    private Map<String, String> finalFlags(Map<String, String> env, String... args) throws Exception {
        var all = new HashMap<>(env);
        all.put("JAVA_OPTS", ("-XX:+PrintFlagsFinal " + env.getOrDefault("JAVA_OPTS", "")).trim());
        try (var process = Caduceus.launch(home, all, args)) {
            assertEquals(0, process.awaitExit(), process.stderr());
            var flags = new HashMap<String, String>();
            var m = FLAG.matcher(process.stdout());
            while (m.find()) flags.put(m.group(1), m.group(2) + " " + m.group(3));
            assertTrue(flags.containsKey("MaxHeapSize"), "no -XX:+PrintFlagsFinal output: " + process.stdout());
            return flags;
        }
    }

    /** Where the launcher asks for periodic trims: glibc Linux, Java 23 or newer (the child runs this JVM). */
    private static boolean trimsTheNativeHeap() throws IOException {
        if (!System.getProperty("os.name").equals("Linux") || Runtime.version().feature() < 23) return false;
        try (var lib = Files.newDirectoryStream(Path.of("/lib"), "ld-musl-*")) {
            return !lib.iterator().hasNext();
        }
    }

    /** The number in "value {origin}". */
    private static long size(String flag) {
        return Long.parseLong(flag.substring(0, flag.indexOf(' ')));
    }

    /** The libraries sqlite-jdbc extracted into {@code $CADUCEUS_HOME/tmp} ({@code sqlite-<version>-<uuid>-…}). */
    private List<String> extractedLibraries() throws IOException {
        try (var files = Files.list(home.resolve("tmp"))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("sqlite-") && !n.endsWith(".lck")).toList();
        }
    }

    /**
     * The distribution's AOT cache holds only for the folder it was made in: there it is used; a copy of the
     * installation elsewhere records its own in its place at its first {@code serve}, which the JVM writes when that
     * server stops, and its next start, with another state directory too, uses that one.
     */
    @Test
    void aMovedInstallationRecordsAStartUpCacheOfItsOwnAndUsesItNextTime(@TempDir Path moved, @TempDir Path otherHome)
            throws Exception {
        var shipped = Caduceus.DIST.resolve("lib/caduceus.aot").toAbsolutePath();
        assumeTrue(Files.exists(shipped), "the build made no AOT cache (a Java older than 25)");
        try (var server = Caduceus.serve(home, Caduceus.KEY_ENV)) {
            assertTrue(mapped(server).contains(shipped.toRealPath().toString()), "the cache is used where it was made");
            assertFalse(server.stderr().contains("start-up cache"), server.stderr());
            assertFalse(recording(server), "a server that uses a cache is told it records one");
        }
        copyTree(Caduceus.DIST, moved);
        var own = moved.resolve("lib/caduceus.aot");
        try (var first = Caduceus.serve(moved, home, Caduceus.KEY_ENV)) {
            assertTrue(first.stderr().contains("no start-up cache for this folder and Java yet"), first.stderr());
            assertFalse(mapped(first).contains("caduceus.aot"), "the copy's cache, made for another folder, is used");
            assertTrue(recording(first), "a recording server is not told (it then leaves TLS's classes out of the cache)");
            first.terminate();
            first.awaitExit();
        }
        assertTrue(Files.size(own) > 0, "no cache written at the stop");
        try (var second = Caduceus.serve(moved, otherHome, Caduceus.KEY_ENV)) {
            assertTrue(mapped(second).contains(own.toRealPath().toString()), "the recorded cache is not used");
            assertFalse(second.stderr().contains("start-up cache"), second.stderr());
            assertEquals(200, second.get("/health", Map.of()).statusCode());
        }
        Files.delete(own); // as if moved again: no cache here; but when the user says none, none is used or recorded
        for (var none : List.of(Map.of("CADUCEUS_AOT", "off"), Map.of("JAVA_OPTS", "-Xshare:off"))) {
            var env = new HashMap<>(none);
            env.put("API_SERVER_KEY", Caduceus.TEST_KEY);
            try (var server = Caduceus.serve(moved, home, env)) {
                assertFalse(mapped(server).contains("caduceus.aot"), none + ": a cache is mapped");
                assertFalse(server.stderr().contains("start-up cache"), server.stderr());
                assertFalse(Files.exists(own), none + ": a cache is being recorded"); // the launcher makes it at once
            }
        }
    }

    /** Whether the launcher told the server that it records the AOT cache (it then also loads TLS's classes). */
    private static boolean recording(Caduceus server) throws IOException {
        var cmdline = Files.readString(Path.of("/proc/" + server.process.pid() + "/cmdline")).split("\0");
        return List.of(cmdline).contains("-Dcaduceus.aot.recording=true");
    }

    private static String mapped(Caduceus server) throws IOException {
        return Files.readString(Path.of("/proc/" + server.process.pid() + "/maps"));
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var paths = Files.walk(from)) {
            for (var path : (Iterable<Path>) paths::iterator) {
                var target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) Files.createDirectories(target);
                else Files.copy(path, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
    }

    /** sqlite-jdbc's folder name for this platform, as bin/caduceus picks it (glibc Linux and macOS). */
    private static String sqliteFolder() {
        var os = System.getProperty("os.name").startsWith("Mac") ? "Mac" : "Linux";
        var arch = switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> "unknown";
        };
        return os + "/" + arch;
    }
}
