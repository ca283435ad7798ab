package dev.caduceus.platform.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real forward proxy for end-to-end tests: Debian's {@code tinyproxy} in the foreground with a
 * generated configuration, listening on 127.0.0.1 and serving only 127.0.0.1. It adds a {@code Via}
 * header naming itself to what it forwards, which is how an upstream tells a proxied request. It cannot
 * take port 0, so a free port is picked and the start retried if another process took it. Required
 * (CI installs it, see {@code .ci/run}): a missing binary fails with how to install it. (The host's
 * own proxy tests have their own launcher: the host cannot depend on the testkit, which depends on it.)
 * Lifecycle: {@link #start}, then {@link #close}. Thread-safe.
 */
public final class Tinyproxy implements AutoCloseable {
    private static final Path BINARY = Path.of("/usr/bin/tinyproxy");

    private final Process process;
    private final int port;
    private final Path log;

    private Tinyproxy(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Starts tinyproxy with its files in {@code dir} and {@code extra} configuration lines. */
    public static Tinyproxy start(Path dir, String... extra) throws IOException, InterruptedException {
        if (!Files.isExecutable(BINARY))
            throw new IllegalStateException("tinyproxy is not installed (" + BINARY + "); apt-get install tinyproxy "
                    + "(.ci/run does)");
        Files.createDirectories(dir);
        for (int attempt = 0; attempt < 5; attempt++) {
            int port;
            try (var probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            var lines = new ArrayList<>(List.of("Port " + port, "Listen 127.0.0.1", "Allow 127.0.0.1", "Timeout 60",
                    "MaxClients 100", "LogLevel Info"));
            lines.addAll(List.of(extra));
            var config = dir.resolve("tinyproxy-" + port + ".conf");
            Files.write(config, lines, UTF_8);
            var log = dir.resolve("tinyproxy-" + port + ".log");
            var process = new ProcessBuilder(BINARY.toString(), "-d", "-c", config.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            var proxy = new Tinyproxy(process, port, log);
            if (proxy.awaitListening()) return proxy;
            proxy.close();
        }
        throw new IllegalStateException("tinyproxy did not start in 5 attempts; see " + dir);
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** What tinyproxy logged so far (one line per request it handled). */
    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private boolean awaitListening() throws InterruptedException {
        var deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) return false;
            if (log().contains("Accepting connections")) {
                try (var probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    return true;
                } catch (IOException e) {
                    return false; // its main loop runs, but another process holds the port
                }
            }
            Thread.sleep(10); // polling a log file with a deadline: nothing to wait on
        }
        return false;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
    }
}
