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
 * JS, the OpenAI Agents SDK) and the openai SDK itself, pinned by the lockfile in {@code src/test/node/agents},
 * installed with {@code npm ci} into {@code target/agents-npm} on first use, and the scripts beside it that drive them
 * and print one JSON line: {@code client-tools.mjs} (one tool loop with one framework), {@code background.mjs}.
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
        return script(SCRIPT, framework, server, apiKey, env, serverLog);
    }

    /** Runs {@code script} (a script of {@code src/test/node/agents}) with {@code argument}; returns the line it printed. */
    static JsonNode script(String script, String argument, URI server, String apiKey, Map<String, String> env,
                           String serverLog) throws Exception {
        var path = install(script);
        var node = new ProcessBuilder("node", path.toString(), argument).directory(DIR.toFile()).redirectErrorStream(true);
        node.environment().put("BASE_URL", server.resolve("/v1").toString());
        node.environment().put("API_KEY", apiKey);
        node.environment().putAll(env);
        var process = node.start();
        var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), argument + ":\n" + output + "\nserver log:\n" + serverLog);
        return new ObjectMapper().readTree(output.lines().reduce((a, b) -> b).orElseThrow());
    }

    /** Installs the lockfile (once) and {@code script}; returns the script's path in {@link #DIR}. */
    static synchronized Path install(String script) throws Exception {
        return NpmLock.holding(DIR, () -> {
            NpmLock.ci(SOURCE, DIR, "@openai/agents", Map.of());
            NpmLock.copyIfChanged(SOURCE.resolve(script), DIR.resolve(script));
            return DIR.resolve(script).toAbsolutePath();
        });
    }
}
