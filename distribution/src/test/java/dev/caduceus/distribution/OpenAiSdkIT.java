package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official {@code openai} npm SDK (pinned) against the assembled server: plain, streaming, and
 * {@code chat.completions.stream(...).finalChatCompletion()}, the helper that breaks on Hermes' named
 * tool-progress events. Needs node and npm (the npm registry is reachable from CI).
 */
class OpenAiSdkIT {
    @TempDir Path home;

    @Test
    void theOfficialSdkCanCallChatCompletionsPlainStreamingAndWithTheStreamHelper() throws Exception {
        try (var upstream = ScriptedUpstream.start()) {
            upstream.enqueue(Turn.text("plain answer"),
                    Turn.textChunks("streamed ", "answer").usage(11, 2),
                    Turn.toolCalls(Turn.ToolCall.of("call_1", "add", "{\"a\":20,\"b\":22}")),
                    Turn.textChunks("helper ", "answer: 42"));
            ThirdPartyPlugins.calc(home.resolve("plugins"));
            var env = Caduceus.upstreamEnv(upstream);
            env.put("CADUCEUS__AGENT__TOOLSETS", "hermes-api-server,calc");
            try (var server = Caduceus.serve(home, env)) {
                var result = NodeSdk.run("sdk-check.mjs", server.awaitListening(), Caduceus.TEST_KEY, server.stderr());
                assertEquals("plain answer", result.path("plain").asText());
                assertEquals("stop", result.path("plainFinish").asText());
                assertEquals("streamed answer", result.path("stream").asText());
                assertEquals(13, result.path("streamUsage").path("total_tokens").asInt(), result.toString());
                assertEquals("helper answer: 42", result.path("helper").asText());
                assertEquals("stop", result.path("helperFinish").asText());
                var afterTool = upstream.chatRequests().get(3).body().path("messages");
                assertEquals("{\"sum\": 42}", afterTool.get(afterTool.size() - 1).path("content").asText(),
                        "the tool ran between the two upstream calls of the helper's turn");
            }
        }
    }
}
