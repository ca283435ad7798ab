package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The official {@code openai} npm SDK and the AI SDK ({@code ai} with its openai-compatible
 * provider, the last major line that runs on Node 18+), pinned, installed with npm into
 * {@code target/openai-sdk} and {@code target/ai-sdk} on first use, and the scripts in
 * {@code src/test/node} that drive them against a running server. Each script prints one JSON line
 * with what the SDK returned.
 */
final class NodeSdk {
    static final String SDK = "openai@5.23.2";
    static final Path DIR = Path.of("target/openai-sdk");
    static final List<String> AI_SDK = List.of("ai@5.0.277", "@ai-sdk/openai-compatible@1.0.61");
    static final Path AI_DIR = Path.of("target/ai-sdk");

    private NodeSdk() {}

    /** Runs {@code script} (an openai SDK script) against {@code server} and returns the JSON line it printed. */
    static JsonNode run(String script, URI server, String apiKey, String serverLog) throws Exception {
        return run(DIR, List.of(SDK), "openai", script, server, apiKey, serverLog);
    }

    /** Runs {@code script} (an AI SDK script) against {@code server} and returns the JSON line it printed. */
    static JsonNode runAiSdk(String script, URI server, String apiKey, String serverLog) throws Exception {
        return run(AI_DIR, AI_SDK, "ai", script, server, apiKey, serverLog);
    }

    private static JsonNode run(Path dir, List<String> packages, String marker, String script, URI server,
                                String apiKey, String serverLog) throws Exception {
        install(dir, packages, marker, script);
        var node = new ProcessBuilder("node", script).directory(dir.toFile()).redirectErrorStream(true);
        node.environment().put("BASE_URL", server.resolve("/v1").toString());
        node.environment().put("API_KEY", apiKey);
        var process = node.start();
        var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output + "\nserver log:\n" + serverLog);
        return new ObjectMapper().readTree(output.lines().reduce((a, b) -> b).orElseThrow());
    }

    private static synchronized void install(Path dir, List<String> packages, String marker, String script)
            throws Exception {
        NpmLock.holding(dir, () -> {
            installLocked(dir, packages, marker, script);
            return null;
        });
    }

    private static void installLocked(Path dir, List<String> packages, String marker, String script) throws Exception {
        Files.createDirectories(dir);
        NpmLock.copyIfChanged(Path.of("src/test/node", script), dir.resolve(script));
        if (Files.isDirectory(dir.resolve("node_modules").resolve(marker))) return;
        var command = new java.util.ArrayList<>(List.of("npm", "install", "--no-audit", "--no-fund", "--no-save"));
        command.addAll(packages);
        var npm = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        var output = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(npm.waitFor(180, TimeUnit.SECONDS), "npm install timed out");
        assertEquals(0, npm.exitValue(), "npm install " + packages + " failed:\n" + output);
    }
}
