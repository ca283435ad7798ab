package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseOutputItem;
import com.openai.models.responses.ResponseStatus;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official Java SDK ({@code com.openai:openai-java}, pinned in the POM) against /v1/responses:
 * create, a chain of three turns with previous_response_id, and streaming.
 */
class OpenAiJavaSdkIT {
    @TempDir Path home;

    @Test
    void theJavaSdkCreatesChainsAndStreamsResponses() throws Exception {
        try (var upstream = ScriptedUpstream.start()) {
            upstream.enqueue(Turn.text("one"), Turn.text("two"), Turn.text("three"), Turn.textChunks("stream", "ed"));
            var env = Caduceus.upstreamEnv(upstream);
            try (var server = Caduceus.serve(home, env)) {
                var client = OpenAIOkHttpClient.builder().baseUrl(server.awaitListening().resolve("/v1").toString())
                        .apiKey(Caduceus.TEST_KEY).maxRetries(0).build();
                try {
                    var first = client.responses().create(params("turn one", null));
                    assertEquals("one", text(first));
                    assertEquals(ResponseStatus.COMPLETED, first.status().orElseThrow());
                    var second = client.responses().create(params("turn two", first.id()));
                    var third = client.responses().create(params("turn three", second.id()));
                    assertEquals("three", text(third));
                    var sent = upstream.chatRequests().get(2).body().path("messages").toString();
                    assertTrue(sent.contains("turn one") && sent.contains("two") && sent.contains("turn three"), sent);

                    var streamed = new StringBuilder();
                    var completed = new boolean[1];
                    try (var stream = client.responses().createStreaming(params("stream please", null))) {
                        stream.stream().forEach(event -> {
                            event.outputTextDelta().ifPresent(d -> streamed.append(d.delta()));
                            if (event.isCompleted()) completed[0] = true;
                        });
                    }
                    assertEquals("streamed", streamed.toString());
                    assertTrue(completed[0], "a response.completed event arrived");
                } finally {
                    client.close();
                }
            }
        }
    }

    private static ResponseCreateParams params(String input, String previous) {
        var builder = ResponseCreateParams.builder().model("hermes-agent").input(input);
        if (previous != null) builder.previousResponseId(previous);
        return builder.build();
    }

    private static String text(Response response) {
        return response.output().stream().filter(ResponseOutputItem::isMessage)
                .flatMap(item -> item.message().orElseThrow().content().stream())
                .map(part -> part.outputText().map(t -> t.text()).orElse(""))
                .collect(Collectors.joining());
    }
}
