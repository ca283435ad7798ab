package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The assembled distribution, launched through {@code bin/caduceus} in a child JVM with a temporary
 * {@code CADUCEUS_HOME} and a random port. Collects stdout and stderr for assertions.
 *
 * <p>With the system property {@value #DATABASE_PROPERTY}{@code =postgresql} ({@link OnPostgres} sets it for
 * the {@code …OnPostgresIT} classes), every state directory gets a database of its own on the test JVM's
 * PostgreSQL server ({@code CADUCEUS_DATABASE_URL}), kept for every launch on that directory, so the same
 * end-to-end tests run against PostgreSQL. A test that sets {@code CADUCEUS_DATABASE_URL} itself keeps its own.
 */
final class Caduceus implements AutoCloseable {
    static final Path DIST = Path.of(System.getProperty("caduceus.dist", "target/caduceus"));
    /** The system property that picks the store of every launched server: {@code sqlite} (default) or {@code postgresql}. */
    static final String DATABASE_PROPERTY = "caduceus.test.database";
    /** The PostgreSQL database of each state directory, when {@link #DATABASE_PROPERTY} asks for PostgreSQL. */
    private static final Map<Path, dev.caduceus.platform.testkit.postgres.TestPostgres.Db> DATABASES =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** True when this run launches every server on PostgreSQL ({@link #DATABASE_PROPERTY}). */
    static boolean onPostgres() {
        return "postgresql".equalsIgnoreCase(System.getProperty(DATABASE_PROPERTY, "sqlite"));
    }

    /** The PostgreSQL database of {@code home} when {@link #onPostgres()}, made at its first launch. */
    static java.util.Optional<dev.caduceus.platform.testkit.postgres.TestPostgres.Db> databaseOf(Path home) {
        if (!onPostgres()) return java.util.Optional.empty();
        return java.util.Optional.of(DATABASES.computeIfAbsent(home.toAbsolutePath().normalize(),
                h -> dev.caduceus.platform.testkit.postgres.TestPostgres.shared().newDatabase()));
    }
    /** A configured key for tests that do not test key generation. */
    static final String TEST_KEY = "a-test-key-that-is-long-enough";
    /** The environment that configures {@link #TEST_KEY}. */
    static final Map<String, String> KEY_ENV = Map.of("API_SERVER_KEY", TEST_KEY);
    /**
     * A mutable environment with {@link #TEST_KEY} and {@code upstream} as the model
     * ({@code scripted-model}): what most end-to-end tests start the server with.
     */
    static Map<String, String> upstreamEnv(dev.caduceus.platform.testkit.ScriptedUpstream upstream) {
        var env = new java.util.HashMap<>(KEY_ENV);
        env.put("OPENAI_BASE_URL", upstream.baseUrl());
        env.put("CADUCEUS_MODEL", "scripted-model");
        return env;
    }

    /** The header that presents {@link #TEST_KEY}. */
    static final Map<String, String> KEY_AUTH = Map.of("Authorization", "Bearer " + TEST_KEY);
    private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+)");
    private static final Pattern GENERATED_KEY = Pattern.compile("^    API key: (\\S+)$", Pattern.MULTILINE);

    final Path home;
    final Process process;
    private final List<String> stdout = Collections.synchronizedList(new ArrayList<>());
    private final List<String> stderr = Collections.synchronizedList(new ArrayList<>());
    private final CompletableFuture<URI> uri = new CompletableFuture<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Caduceus(Path home, Process process) {
        this.home = home;
        this.process = process;
        pipe(process.getInputStream(), stdout, true);
        pipe(process.getErrorStream(), stderr, false);
        process.onExit().thenRun(() -> uri.completeExceptionally(new IllegalStateException("exited")));
    }

    /** How a command that ran to its end went. */
    record Result(int status, String stdout, String stderr) {
        /** Both streams, for failure messages. */
        String all() {
            return "exit " + status + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }

    /**
     * {@code JAVA_OPTS} of every launched JVM unless a test sets its own: the system property
     * {@code caduceus.test.javaOpts} (the poms' {@code it.childJavaOpts}, by default {@code test.jvmFlags}: C1 only).
     * A test's server runs for seconds, mostly cold: the C2 compiler's work for a peak it never reaches was a
     * large part of the suite's CPU on two cores (bench/README.md, "The suite's time"). Empty: the launcher's own.
     */
    static final String CHILD_JAVA_OPTS = System.getProperty("caduceus.test.javaOpts", "");

    /** Starts {@code bin/caduceus} with {@code args} and extra environment. */
    static Caduceus launch(Path home, Map<String, String> env, String... args) throws IOException {
        return launch(DIST, home, env, args);
    }

    /** Starts {@code <dist>/bin/caduceus}: another copy of the distribution. */
    static Caduceus launch(Path dist, Path home, Map<String, String> env, String... args) throws IOException {
        var command = new ArrayList<String>();
        command.add(dist.resolve("bin/caduceus").toString());
        command.addAll(List.of(args));
        var builder = new ProcessBuilder(command);
        builder.environment().put("CADUCEUS_HOME", home.toString());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("API_SERVER_PORT", "0");
        builder.environment().remove("API_SERVER_KEY");
        if (!CHILD_JAVA_OPTS.isBlank()) builder.environment().put("JAVA_OPTS", CHILD_JAVA_OPTS);
        if (!env.containsKey("CADUCEUS_DATABASE_URL"))
            databaseOf(home).ifPresent(db -> builder.environment().put("CADUCEUS_DATABASE_URL", db.url()));
        // Without the build's AOT cache (its training failed), every `serve` would record one and write it at its
        // stop, seconds each: the tests run without, as the distribution did before it had one.
        if (!Files.exists(dist.resolve("lib/caduceus.aot"))) builder.environment().put("CADUCEUS_AOT", "off");
        builder.environment().putAll(env);
        var workspace = defaultWorkspace(home);
        if (!Files.exists(workspace)) deleteAtExit(workspace);
        return new Caduceus(home, builder.start());
    }

    /**
     * The default {@code tools.workspace} of a state directory: its sibling {@code <home>-workspace},
     * outside a test's {@code @TempDir}. One that a launch creates is deleted when the test JVM exits
     * (not at {@link #close()}: later launches on the same home may still use it, and not every test
     * closes its process).
     */
    static Path defaultWorkspace(Path home) {
        return home.resolveSibling(home.getFileName() + "-workspace");
    }

    private static final Pattern PRINTED_NAMED_KEY = Pattern.compile("^    (cdk_\\S+)$", Pattern.MULTILINE);

    /**
     * Runs {@code caduceus key add ARGS} (the name first, then options) on {@code home} and returns the
     * key it printed once; fails the test unless it exits 0.
     */
    static String addNamedKey(Path home, String... args) throws Exception {
        var command = new ArrayList<String>(List.of("key", "add"));
        command.addAll(List.of(args));
        try (var process = launch(home, Map.of(), command.toArray(String[]::new))) {
            int status = process.awaitExit();
            if (status != 0) fail("key add exited " + status + ": " + process.stderr());
            var m = PRINTED_NAMED_KEY.matcher(process.stdout());
            if (!m.find()) fail("key add printed no key: " + process.stdout());
            return m.group(1);
        }
    }

    /** Starts the server and waits until it listens. */
    static Caduceus serve(Path home, Map<String, String> env, String... args) throws Exception {
        return serve(DIST, home, env, args);
    }

    /** Starts {@code <dist>/bin/caduceus serve} and waits until it listens. */
    static Caduceus serve(Path dist, Path home, Map<String, String> env, String... args) throws Exception {
        var all = new ArrayList<String>(List.of("serve"));
        all.addAll(List.of(args));
        var server = launch(dist, home, env, all.toArray(String[]::new));
        server.awaitListening();
        if (onPostgres() && !server.stdout().contains("  database: postgresql "))
            fail("asked for PostgreSQL (" + DATABASE_PROPERTY + "), but the server says otherwise:\n" + server.stdout());
        return server;
    }

    private final List<Thread> readers = new ArrayList<>();

    private void pipe(java.io.InputStream in, List<String> sink, boolean watchForListening) {
        readers.add(Thread.ofVirtual().start(() -> {
            try (var reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    sink.add(line);
                    var m = LISTENING.matcher(line);
                    if (watchForListening && m.find()) uri.complete(URI.create(m.group(1)));
                }
            } catch (IOException ignored) {
                // process ended
            }
        }));
    }

    URI awaitListening() throws Exception {
        try {
            return uri.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            fail("server did not start: " + e + "\nstdout:\n" + String.join("\n", stdout) + "\nstderr:\n"
                    + String.join("\n", stderr));
            throw e;
        }
    }

    /**
     * Sends SIGTERM, as Ctrl-C or a service manager would. ({@link Process#destroy()} also closes
     * our ends of the pipes, so everything the process prints while shutting down would be lost.)
     */
    void terminate() throws Exception {
        new ProcessBuilder("kill", "-TERM", String.valueOf(process.pid())).start().waitFor();
    }

    /** Waits for the process to exit and returns its status. */
    int awaitExit() throws InterruptedException {
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("process did not exit");
        }
        for (var reader : readers) reader.join(5_000); // everything the process wrote has been read
        return process.exitValue();
    }

    String stdout() {
        synchronized (stdout) { return String.join("\n", stdout); } // the pipe reader may be adding lines
    }

    String stderr() {
        synchronized (stderr) { return String.join("\n", stderr); }
    }

    /**
     * The key this start generated, as the start-up banner printed it once (the key file holds only
     * its hash); fails when this start did not generate one.
     */
    String key() {
        var m = GENERATED_KEY.matcher(stdout());
        if (!m.find()) fail("this start printed no generated key; stdout:\n" + stdout());
        return m.group(1);
    }

    HttpResponse<String> send(String method, String path, String body, Map<String, String> headers)
            throws Exception {
        var builder = HttpRequest.newBuilder(awaitListening().resolve(path)).timeout(Duration.ofSeconds(20));
        headers.forEach(builder::header);
        builder.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body));
        return http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path, Map<String, String> headers) throws Exception {
        return send("GET", path, null, headers);
    }

    Map<String, String> auth() {
        var headers = new LinkedHashMap<String, String>();
        headers.put("Authorization", "Bearer " + key());
        return headers;
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly();
    }

    private static void deleteAtExit(Path root) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) return;
            try (var paths = Files.walk(root)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException | RuntimeException ignored) {
                // best effort, like @TempDir's own clean-up
            }
        }, "delete " + root));
    }
}
