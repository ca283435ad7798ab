package dev.caduceus.platform.testkit.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real PostgreSQL server for tests: Debian's binaries ({@code /usr/lib/postgresql/<n>/bin}, or
 * {@code CADUCEUS_TEST_PG_BIN}), a cluster made by {@code initdb} in a temporary directory, listening on
 * loopback on a free port, with password (SCRAM) authentication over TCP. When the test JVM runs as root,
 * which PostgreSQL refuses, the server runs as the {@code postgres} user (or {@code nobody}).
 *
 * <p>{@link #shared()} starts one server per JVM on first use and stops it when the JVM exits; each test
 * takes a database of its own from {@link #newDatabase()}. Durability is off (fsync, full page writes):
 * the server's files are thrown away anyway.
 *
 * <p>Threading: thread-safe.
 */
public final class TestPostgres {
    /** The superuser the cluster is made with, and its password. */
    public static final String USER = "caduceus";
    public static final String PASSWORD = "caduceus-test";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path dir;
    private final int port;
    private final Process server;
    private final AtomicInteger databases = new AtomicInteger();

    /** A database of this server: a JDBC URL and the credentials to reach it. */
    public record Db(String name, String jdbcUrl, String user, String password, int port) {
        /** The same database as a {@code postgresql://user:password@host:port/name} URL. */
        public String url() {
            return "postgresql://" + user + ":" + password + "@127.0.0.1:" + port + "/" + name;
        }

        /** A new connection (autocommit), for a test's own checks. */
        public Connection connect() throws SQLException {
            return DriverManager.getConnection(jdbcUrl, user, password);
        }
    }

    private TestPostgres(Path dir, int port, Process server) {
        this.dir = dir;
        this.port = port;
        this.server = server;
    }

    /** The server of this JVM, started on first use. */
    public static TestPostgres shared() {
        return Holder.INSTANCE;
    }

    private static final class Holder {
        static final TestPostgres INSTANCE = start();
    }

    /** The TCP port the server listens on (127.0.0.1). */
    public int port() {
        return port;
    }

    /** A new connection (autocommit) to the server's {@code postgres} database, as superuser: for a test's
     *  administration (ALTER DATABASE, terminating connections). */
    public Connection admin() throws SQLException {
        return DriverManager.getConnection(jdbcUrl("postgres"), USER, PASSWORD);
    }

    /** A new, empty database (its own name), owned by {@link #USER}. */
    public Db newDatabase() {
        String name = "test_" + ProcessHandle.current().pid() + "_" + databases.incrementAndGet();
        try (var c = DriverManager.getConnection(jdbcUrl("postgres"), USER, PASSWORD); var st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create test database " + name + ": " + e.getMessage(), e);
        }
        return new Db(name, jdbcUrl(name), USER, PASSWORD, port);
    }

    private String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    private static TestPostgres start() {
        Path bin = binaries();
        Path dir;
        try {
            dir = Files.createTempDirectory("caduceus-test-pg");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Optional<String> runAs = isRoot() ? Optional.of(unprivilegedUser()) : Optional.empty();
        Path data = dir.resolve("data");
        Path pwFile = dir.resolve("pw");
        Path log = dir.resolve("server.log");
        try {
            Files.writeString(pwFile, PASSWORD + "\n");
            if (runAs.isPresent()) chown(dir, runAs.get());
            run(command(runAs, bin.resolve("initdb").toString(), "-D", data.toString(), "-U", USER,
                    "--pwfile=" + pwFile, "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync",
                    "-E", "UTF8", "--locale=C"), dir.resolve("initdb.log"));
            if (runAs.isPresent()) chown(dir, runAs.get());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int port = freePort();
        var argv = command(runAs, bin.resolve("postgres").toString(), "-D", data.toString(), "-p", String.valueOf(port),
                "-k", dir.toString(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "full_page_writes=off",
                "-c", "synchronous_commit=off", "-c", "max_connections=400", "-c", "shared_buffers=64MB");
        Process server;
        try {
            server = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + argv.getFirst(), e);
        }
        var pg = new TestPostgres(dir, port, server);
        Runtime.getRuntime().addShutdownHook(new Thread(pg::stop, "test-postgres-stop"));
        pg.awaitReady(log);
        return pg;
    }

    private void awaitReady(Path log) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!server.isAlive()) throw new IllegalStateException("Test PostgreSQL exited at start: " + tail(log));
            try (var c = DriverManager.getConnection(jdbcUrl("postgres"), USER, PASSWORD)) {
                return;
            } catch (SQLException e) {
                last = e;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(50); // polling for readiness, bounded by the deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("Test PostgreSQL did not accept connections within " + START_TIMEOUT + ": "
                + (last == null ? "" : last.getMessage()) + "\n" + tail(log));
    }

    /** Fast shutdown (SIGINT), then kill; removes the directory. */
    private void stop() {
        try {
            new ProcessBuilder("kill", "-INT", String.valueOf(server.pid())).start().waitFor(5, TimeUnit.SECONDS);
            if (!server.waitFor(10, TimeUnit.SECONDS)) server.destroyForcibly();
        } catch (IOException | InterruptedException e) {
            server.destroyForcibly();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // temporary files
        }
    }

    private static Path binaries() {
        String configured = System.getenv("CADUCEUS_TEST_PG_BIN");
        if (configured != null && !configured.isBlank()) return Path.of(configured);
        Path root = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(root)) {
            try (var versions = Files.list(root)) {
                var found = versions.filter(v -> Files.isExecutable(v.resolve("bin/postgres")))
                        .max(Comparator.comparingInt(v -> parseIntOr(v.getFileName().toString())));
                if (found.isPresent()) return found.get().resolve("bin");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("No PostgreSQL server binaries: install Debian's postgresql package "
                + "(.ci/run does: apt-get install -y postgresql) or set CADUCEUS_TEST_PG_BIN to a bin directory");
    }

    private static int parseIntOr(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean isRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return Integer.valueOf(0).equals(uid);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    private static String unprivilegedUser() {
        try {
            boolean postgres = Files.readAllLines(Path.of("/etc/passwd")).stream().anyMatch(l -> l.startsWith("postgres:"));
            return postgres ? "postgres" : "nobody";
        } catch (IOException e) {
            return "nobody";
        }
    }

    private static List<String> command(Optional<String> runAs, String... argv) {
        var command = new ArrayList<String>();
        runAs.ifPresent(user -> command.addAll(List.of("setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups")));
        command.addAll(List.of(argv));
        return command;
    }

    private static void chown(Path dir, String user) throws IOException {
        run(List.of("chown", "-R", user, dir.toString()), null);
    }

    private static void run(List<String> argv, Path log) throws IOException {
        var pb = new ProcessBuilder(argv).redirectErrorStream(true);
        if (log != null) pb.redirectOutput(log.toFile());
        else pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        try {
            var p = pb.start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(argv.getFirst() + " did not finish in 60 s");
            }
            if (p.exitValue() != 0)
                throw new IOException(String.join(" ", argv) + " failed (exit " + p.exitValue() + ")"
                        + (log == null ? "" : ": " + tail(log)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static String tail(Path log) {
        try {
            var lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    private static int freePort() {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
