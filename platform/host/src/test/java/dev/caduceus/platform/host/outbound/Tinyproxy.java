package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real forward proxy for the tests: Debian's {@code tinyproxy}, run in the foreground with a
 * generated configuration, listening on 127.0.0.1 and allowing only 127.0.0.1. Its outgoing
 * connections leave from {@link #OUTGOING} (its {@code Bind} option), so an upstream can tell a
 * proxied connection from a direct one by the client address alone. tinyproxy cannot take port 0,
 * so a free port is picked and the start retried if another process took it first. It is required
 * (CI installs it, see {@code .ci/run}): a missing binary fails the test with how to install it.
 * Close it after the test.
 */
final class Tinyproxy implements AutoCloseable {
    static final Path BINARY = Path.of("/usr/bin/tinyproxy");
    /** The address tinyproxy's connections to upstreams come from. */
    static final String OUTGOING = "127.0.0.3";

    private final Process process;
    private final int port;
    private final Path log;

    private Tinyproxy(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Starts tinyproxy in {@code dir} with the base settings and {@code extra} configuration lines. */
    static Tinyproxy start(Path dir, String... extra) throws IOException, InterruptedException {
        if (!Files.isExecutable(BINARY))
            fail("tinyproxy is not installed (" + BINARY + "): the proxy tests need a real forward proxy; "
                    + "apt-get install tinyproxy (.ci/run does)");
        Files.createDirectories(dir);
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = TestServers.freePort();
            var lines = new ArrayList<>(List.of("Port " + port, "Listen 127.0.0.1", "Allow 127.0.0.1",
                    "Bind " + OUTGOING, "Timeout 60", "MaxClients 100", "LogLevel Info"));
            lines.addAll(List.of(extra));
            var config = dir.resolve("tinyproxy-" + port + ".conf");
            Files.write(config, lines, UTF_8);
            var log = dir.resolve("tinyproxy-" + port + ".log");
            var process = new ProcessBuilder(BINARY.toString(), "-d", "-c", config.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            var proxy = new Tinyproxy(process, port, log);
            if (proxy.awaitListening()) return proxy;
            proxy.close(); // the port was taken meanwhile, or tinyproxy refused the configuration
            if (attempt == 4) fail("tinyproxy did not start; its output:\n" + Files.readString(log));
        }
        throw new AssertionError("unreachable");
    }

    int port() {
        return port;
    }

    /** The proxy's URL, with {@code userinfo} ({@code user:password}) when not null. */
    String url(String userinfo) {
        return "http://" + (userinfo == null ? "" : userinfo + "@") + "127.0.0.1:" + port;
    }

    /** What tinyproxy logged so far (each request it handled, with its request line). */
    String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private boolean awaitListening() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) return false;
            if (log().contains("Accepting connections")) {
                try (var probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    return true;
                } catch (IOException e) {
                    return false; // it logged its main loop but another process holds the port
                }
            }
            Thread.sleep(10);
        }
        return false;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
    }
}
