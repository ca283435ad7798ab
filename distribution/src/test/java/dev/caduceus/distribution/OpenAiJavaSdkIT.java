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

    /**
     * Issue 42: openai-java's documented tool loop on chat completions. The agent runs the calc plugin's {@code add}
     * on the server, then calls the caller's {@code lookup_code}; the caller answers; the final answer uses it.
     */
    @Test
    void theJavaSdkRunsItsOwnToolInATurnWhereTheServersRanFirst() throws Exception {
        try (var upstream = ScriptedUpstream.start()) {
            upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_add", "add", "{\"a\":20,\"b\":22}")));
            upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_up", "lookup_code", "{\"topic\":\"tea\"}")));
            upstream.enqueue(Turn::quotingLastToolResult);
            ThirdPartyPlugins.calc(home.resolve("plugins"));
            var env = Caduceus.upstreamEnv(upstream);
            env.put("CADUCEUS__AGENT__TOOLSETS", "hermes-api-server,calc");
            try (var server = Caduceus.serve(home, env)) {
                var client = OpenAIOkHttpClient.builder().baseUrl(server.awaitListening().resolve("/v1").toString())
                        .apiKey(Caduceus.TEST_KEY).maxRetries(0).build();
                try {
                    var lookup = com.openai.models.chat.completions.ChatCompletionFunctionTool.builder()
                            .function(com.openai.models.FunctionDefinition.builder().name("lookup_code")
                                    .description("Looks up the code word for a topic.")
                                    .parameters(com.openai.models.FunctionParameters.builder()
                                            .putAdditionalProperty("type", com.openai.core.JsonValue.from("object"))
                                            .putAdditionalProperty("properties", com.openai.core.JsonValue.from(
                                                    java.util.Map.of("topic", java.util.Map.of("type", "string"))))
                                            .build())
                                    .build())
                            .build();
                    var params = com.openai.models.chat.completions.ChatCompletionCreateParams.builder()
                            .model("hermes-agent").addUserMessage("Add 20 and 22, then look up the code word for tea.")
                            .addTool(lookup);
                    var executed = new java.util.ArrayList<String>();
                    String answer = null;
                    for (int step = 0; step < 4 && answer == null; step++) {
                        var completion = client.chat().completions().create(params.build());
                        var message = completion.choices().getFirst().message();
                        params.addMessage(message);
                        var calls = message.toolCalls().orElse(java.util.List.of());
                        if (calls.isEmpty()) {
                            answer = message.content().orElse("");
                            continue;
                        }
                        assertEquals(com.openai.models.chat.completions.ChatCompletion.Choice.FinishReason.TOOL_CALLS,
                                completion.choices().getFirst().finishReason());
                        for (var call : calls) {
                            var function = call.asFunction();
                            executed.add(function.function().name() + " " + function.function().arguments());
                            var topic = new com.fasterxml.jackson.databind.ObjectMapper()
                                    .readTree(function.function().arguments()).path("topic").asText();
                            params.addMessage(com.openai.models.chat.completions.ChatCompletionToolMessageParam.builder()
                                    .toolCallId(function.id()).content("code-for-" + topic).build());
                        }
                    }
                    assertEquals(java.util.List.of("lookup_code {\"topic\":\"tea\"}"), executed,
                            "the SDK ran its own tool once; the server's add never reached it");
                    assertEquals("Tool result: code-for-tea", answer);
                    var last = upstream.chatRequests().getLast().body().path("messages").toString();
                    assertTrue(last.indexOf("{\\\"sum\\\": 42}") > 0
                            && last.indexOf("code-for-tea") > last.indexOf("{\\\"sum\\\": 42}"), last);
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
