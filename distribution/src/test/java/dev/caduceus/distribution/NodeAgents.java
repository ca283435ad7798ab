package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Agent frameworks that bring their own tools (the AI SDK with its openai-compatible and OpenAI providers, LangChain
 * JS, the OpenAI Agents SDK), pinned by the lockfile in {@code src/test/node/agents}, installed with {@code npm ci}
 * into {@code target/agents-npm} on first use, and the script {@code client-tools.mjs} that runs one tool loop with
 * one of them and prints one JSON line.
 */
final class NodeAgents {
    static final Path DIR = Path.of("target/agents-npm");
    private static final Path SOURCE = Path.of("src/test/node/agents");
    private static final String SCRIPT = "client-tools.mjs";

    private NodeAgents() {}

    /**
     * Runs the tool loop of {@code framework} ({@code ai-sdk-compatible}, {@code ai-sdk-openai}, {@code langchain},
     * {@code agents-chat}, {@code agents-responses}) against {@code server}; returns the line it printed.
     *
     * @param env extra environment of the script ({@code NO_CLIENT_TOOLS=1}: the framework brings no tool)
     */
    static JsonNode run(String framework, URI server, String apiKey, Map<String, String> env, String serverLog)
            throws Exception {
        var script = install();
        var node = new ProcessBuilder("node", script.toString(), framework).directory(DIR.toFile()).redirectErrorStream(true);
        node.environment().put("BASE_URL", server.resolve("/v1").toString());
        node.environment().put("API_KEY", apiKey);
        node.environment().putAll(env);
        var process = node.start();
        var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), framework + ":\n" + output + "\nserver log:\n" + serverLog);
        return new ObjectMapper().readTree(output.lines().reduce((a, b) -> b).orElseThrow());
    }

    private static synchronized Path install() throws Exception {
        return NpmLock.holding(DIR, () -> {
            NpmLock.ci(SOURCE, DIR, "@openai/agents", Map.of());
            NpmLock.copyIfChanged(SOURCE.resolve(SCRIPT), DIR.resolve(SCRIPT));
            return DIR.resolve(SCRIPT).toAbsolutePath();
        });
    }
}
