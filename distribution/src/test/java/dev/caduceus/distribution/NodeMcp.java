package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The third-party MCP packages the tests run: {@code @modelcontextprotocol/server-everything},
 * {@code server-filesystem} and the TypeScript SDK, pinned by the lockfile in
 * {@code src/test/node/mcp}, installed with {@code npm ci} into {@code target/mcp-npm} on first use.
 */
final class NodeMcp {
    static final Path DIR = Path.of("target/mcp-npm");
    private static final Path SOURCE = Path.of("src/test/node/mcp");

    private NodeMcp() {}

    /** {@code node_modules}, installed from the lockfile when it is not there yet (or the lockfile changed). */
    static synchronized Path modules() throws Exception {
        return NpmLock.holding(DIR, NodeMcp::install);
    }

    private static Path install() throws Exception {
        NpmLock.ci(SOURCE, DIR, "@modelcontextprotocol", java.util.Map.of());
        return DIR.resolve("node_modules").toAbsolutePath();
    }

    /** Copies {@code src/test/node/mcp/<script>} next to {@code node_modules} (installing it first), to run it there. */
    static synchronized Path withScript(String script) throws Exception {
        return NpmLock.holding(DIR, () -> {
            install();
            NpmLock.copyIfChanged(SOURCE.resolve(script), DIR.resolve(script));
            return DIR.resolve(script);
        });
    }

    /** The entry script of an installed package, e.g. {@code server-everything/dist/index.js}. */
    static Path script(String relative) throws Exception {
        var path = modules().resolve("@modelcontextprotocol").resolve(relative);
        assertTrue(Files.isRegularFile(path), path + " is missing");
        return path;
    }

    /**
     * server-everything speaking streamable HTTP on a free port, started as a child process; the
     * future completes with its {@code /mcp} URL once it says it listens.
     */
    static Process everythingOverHttp(int port, CompletableFuture<String> url) throws Exception {
        return everything("streamableHttp", "listening on port", "/mcp", port, url);
    }

    /**
     * server-everything speaking only the older HTTP+SSE transport (2024-11-05); the future completes
     * with its {@code /sse} URL once it listens.
     */
    static Process everythingOverSse(int port, CompletableFuture<String> url) throws Exception {
        return everything("sse", "running on port", "/sse", port, url);
    }

    private static Process everything(String transport, String ready, String path, int port,
                                      CompletableFuture<String> url) throws Exception {
        var builder = new ProcessBuilder("node", script("server-everything/dist/index.js").toString(), transport)
                .redirectErrorStream(true);
        builder.environment().put("PORT", String.valueOf(port));
        var process = builder.start();
        Thread.ofVirtual().start(() -> {
            try (var lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null)
                    if (line.contains(ready)) url.complete("http://127.0.0.1:" + port + path);
                url.completeExceptionally(new IllegalStateException("server-everything (" + transport + ") exited before listening"));
            } catch (Exception e) {
                url.completeExceptionally(e);
            }
        });
        return process;
    }
}
