package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;

/**
 * The official {@code openai} npm SDK, pinned, installed with npm into {@code target/openai-sdk} on
 * first use, and the scripts in {@code src/test/node} that drive it against a running server. Each
 * script prints one JSON line with what the SDK returned.
 */
final class NodeSdk {
    static final String SDK = "openai@5.23.2";
    static final Path DIR = Path.of("target/openai-sdk");

    private NodeSdk() {}

    /** Runs {@code script} against {@code server} and returns the JSON line it printed. */
    static JsonNode run(String script, URI server, String apiKey, String serverLog) throws Exception {
        install(script);
        var node = new ProcessBuilder("node", script).directory(DIR.toFile()).redirectErrorStream(true);
        node.environment().put("BASE_URL", server.resolve("/v1").toString());
        node.environment().put("API_KEY", apiKey);
        var process = node.start();
        var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output + "\nserver log:\n" + serverLog);
        return new ObjectMapper().readTree(output.lines().reduce((a, b) -> b).orElseThrow());
    }

    private static void install(String script) throws Exception {
        Files.createDirectories(DIR);
        Files.copy(Path.of("src/test/node", script), DIR.resolve(script), StandardCopyOption.REPLACE_EXISTING);
        if (Files.isDirectory(DIR.resolve("node_modules/openai"))) return;
        var npm = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--no-save", SDK)
                .directory(DIR.toFile()).redirectErrorStream(true).start();
        var output = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(npm.waitFor(180, TimeUnit.SECONDS), "npm install timed out");
        assertEquals(0, npm.exitValue(), "npm install " + SDK + " failed:\n" + output);
    }
}
