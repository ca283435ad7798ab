package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.testkit.ScriptedUpstream;
import dev.caduceus.testkit.Turn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official {@code openai} npm SDK (pinned) against the assembled server: plain, streaming, and
 * {@code chat.completions.stream(...).finalChatCompletion()}, the helper that breaks on Hermes' named
 * tool-progress events. Needs node and npm (the npm registry is reachable from CI).
 */
class OpenAiSdkIT {
    static final String SDK = "openai@5.23.2";
    static final Path SDK_DIR = Path.of("target/openai-sdk");

    @TempDir Path home;

    @Test
    void theOfficialSdkCanCallChatCompletionsPlainStreamingAndWithTheStreamHelper() throws Exception {
        installSdk();
        try (var upstream = ScriptedUpstream.start()) {
            upstream.enqueue(Turn.text("plain answer"),
                    Turn.textChunks("streamed ", "answer").usage(11, 2),
                    Turn.toolCalls(Turn.ToolCall.of("call_1", "add", "{\"a\":20,\"b\":22}")),
                    Turn.textChunks("helper ", "answer: 42"));
            ThirdPartyPlugins.calc(home.resolve("plugins"));
            var env = new HashMap<>(Caduceus.KEY_ENV);
            env.put("OPENAI_BASE_URL", upstream.baseUrl());
            env.put("CADUCEUS_MODEL", "scripted-model");
            env.put("CADUCEUS__AGENT__TOOLSETS", "hermes-api-server,calc");
            try (var server = Caduceus.serve(home, env)) {
                var node = new ProcessBuilder("node", "sdk-check.mjs").directory(SDK_DIR.toFile())
                        .redirectErrorStream(true);
                node.environment().put("BASE_URL", server.awaitListening().resolve("/v1").toString());
                node.environment().put("API_KEY", Caduceus.TEST_KEY);
                var process = node.start();
                var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(process.waitFor(60, TimeUnit.SECONDS));
                assertEquals(0, process.exitValue(), output + "\nserver stderr:\n" + server.stderr());
                var result = new ObjectMapper().readTree(output.lines().reduce((a, b) -> b).orElseThrow());
                assertEquals("plain answer", result.path("plain").asText());
                assertEquals("stop", result.path("plainFinish").asText());
                assertEquals("streamed answer", result.path("stream").asText());
                assertEquals(13, result.path("streamUsage").path("total_tokens").asInt(), result.toString());
                assertEquals("helper answer: 42", result.path("helper").asText());
                assertEquals("stop", result.path("helperFinish").asText());
            }
        }
    }

    private static void installSdk() throws Exception {
        Files.createDirectories(SDK_DIR);
        Files.copy(Path.of("src/test/node/sdk-check.mjs"), SDK_DIR.resolve("sdk-check.mjs"),
                StandardCopyOption.REPLACE_EXISTING);
        if (Files.isDirectory(SDK_DIR.resolve("node_modules/openai"))) return;
        var npm = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--no-save", SDK)
                .directory(SDK_DIR.toFile()).redirectErrorStream(true).start();
        var output = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(npm.waitFor(180, TimeUnit.SECONDS), "npm install timed out");
        assertEquals(0, npm.exitValue(), "npm install " + SDK + " failed:\n" + output);
    }
}
