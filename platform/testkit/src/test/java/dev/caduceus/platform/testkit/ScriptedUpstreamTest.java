package dev.caduceus.platform.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ScriptedUpstreamTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STREAM = "{\"model\":\"m1\",\"stream\":true,\"stream_options\":{\"include_usage\":true}}";
    private static final String PLAIN = "{\"model\":\"m1\"}";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ScriptedUpstream upstream = ScriptedUpstream.start();

    @AfterEach
    void stop() {
        upstream.close();
        http.close();
    }

    @Test
    void streamsTextWordByWordThenFinishUsageAndDone() throws Exception {
        upstream.enqueue(Turn.text("Hello there friend").usage(10, 5));
        var events = dataEvents(post(STREAM, "k1").body());
        assertEquals("[DONE]", events.getLast());
        var chunks = events.subList(0, events.size() - 1).stream().map(ScriptedUpstreamTest::tree).toList();
        assertEquals("chat.completion.chunk", chunks.getFirst().path("object").asText());
        assertEquals("m1", chunks.getFirst().path("model").asText());
        assertEquals("assistant", chunks.getFirst().at("/choices/0/delta/role").asText());
        var text = chunks.stream().map(c -> c.at("/choices/0/delta/content").asText("")).toList();
        assertEquals(List.of("", "Hello ", "there ", "friend", "", ""), text);
        assertEquals("stop", chunks.get(4).at("/choices/0/finish_reason").asText());
        var usage = chunks.getLast();
        assertEquals(0, usage.path("choices").size());
        assertEquals(15, usage.at("/usage/total_tokens").asInt());
    }

    @Test
    void streamsToolCallsWithArgumentsSplitAcrossChunks() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "add", "{\"a\":1,\"b\":2}"),
                Turn.ToolCall.of("call_2", "add", "{\"a\":3,\"b\":4}")));
        var events = dataEvents(post("{\"stream\":true}", null).body());
        var args = new StringBuilder[] {new StringBuilder(), new StringBuilder()};
        int fragments = 0;
        String finish = null;
        for (var event : events.subList(0, events.size() - 1)) {
            var choice = tree(event).at("/choices/0");
            if (!choice.path("finish_reason").isNull()) finish = choice.path("finish_reason").asText();
            for (var call : choice.at("/delta/tool_calls")) {
                int index = call.path("index").asInt();
                if (call.has("id")) assertEquals(index == 0 ? "call_1" : "call_2", call.path("id").asText());
                args[index].append(call.at("/function/arguments").asText());
                fragments++;
            }
        }
        assertTrue(fragments >= 4, "arguments are split: " + fragments);
        assertEquals("{\"a\":1,\"b\":2}", args[0].toString());
        assertEquals("{\"a\":3,\"b\":4}", args[1].toString());
        assertEquals("tool_calls", finish);
        assertFalse(events.stream().anyMatch(e -> e.contains("\"usage\"")), "no usage unless asked");
    }

    @Test
    void answersOneJsonWhenNotStreaming() throws Exception {
        upstream.enqueue(Turn.reasoning("hmm").withText("answer").withToolCalls(
                Turn.ToolCall.of("c1", "f", "{\"x\":1}")).finishReason("length").usage(3, 4));
        var body = tree(post(PLAIN, null).body());
        assertEquals("chat.completion", body.path("object").asText());
        var message = body.at("/choices/0/message");
        assertEquals("answer", message.path("content").asText());
        assertEquals("hmm", message.path("reasoning_content").asText());
        assertEquals("{\"x\":1}", message.at("/tool_calls/0/function/arguments").asText());
        assertEquals("length", body.at("/choices/0/finish_reason").asText());
        assertEquals(7, body.at("/usage/total_tokens").asInt());
    }

    @Test
    void answersErrorsWithStatusBodyAndRetryAfter() throws Exception {
        upstream.enqueue(Turn.error(429, "slow down").retryAfterSeconds(1));
        var response = post(STREAM, null);
        assertEquals(429, response.statusCode());
        assertEquals("1", response.headers().firstValue("retry-after").orElseThrow());
        assertEquals("slow down", tree(response.body()).at("/error/message").asText());
    }

    @Test
    void cutsTheConnectionMidStream() {
        upstream.enqueue(Turn.text("one two three four").cutAfterChunks(2));
        assertThrows(IOException.class, () -> post(STREAM, null));
    }

    @Test
    void malformedAnswersAreNotJson() throws Exception {
        upstream.enqueue(Turn.malformed(), Turn.malformed());
        assertThrows(IOException.class, () -> JSON.readTree(post(PLAIN, null).body()));
        var events = dataEvents(post(STREAM, null).body());
        assertThrows(IOException.class, () -> JSON.readTree(events.getFirst()));
    }

    @Test
    void delaysBeforeTheFirstByte() throws Exception {
        upstream.enqueue(Turn.text("slow").delayMillis(300));
        long start = System.nanoTime();
        post(PLAIN, null);
        assertTrue(System.nanoTime() - start >= 300_000_000L);
    }

    @Test
    void recordsBodiesAndHeadersAndUsesTheDefaultWhenEmpty() throws Exception {
        upstream.enqueue(Turn.text("first"));
        upstream.setDefault(Turn.text("ok"));
        post(PLAIN, "secret");
        var second = tree(post(PLAIN, null).body());
        assertEquals("ok", second.at("/choices/0/message/content").asText());
        var recorded = upstream.chatRequests();
        assertEquals(2, recorded.size());
        assertEquals("m1", recorded.getFirst().body().path("model").asText());
        assertEquals("Bearer secret", recorded.getFirst().header("Authorization"));
        assertEquals(null, recorded.get(1).header("authorization"));
    }

    @Test
    void aResponderTurnQuotesTheLastToolResultOfItsRequest() throws Exception {
        upstream.enqueue(Turn::quotingLastToolResult);
        var body = "{\"model\":\"m1\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"42 files\"}]}";
        var answer = tree(post(body, null).body());
        assertEquals("Tool result: 42 files", answer.at("/choices/0/message/content").asText());
    }

    @Test
    void answers400WhenNothingIsScriptedAndListsModels() throws Exception {
        assertEquals(400, post(PLAIN, null).statusCode());
        var models = http.send(HttpRequest.newBuilder(URI.create(upstream.baseUrl() + "/models")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(ScriptedUpstream.MODEL, tree(models.body()).at("/data/0/id").asText());
    }

    @Test
    void sustainsManyConcurrentRequests() throws Exception {
        upstream.setDefault(Turn.text("ok")).recordRequests(false);
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var futures = new ArrayList<java.util.concurrent.Future<Integer>>();
            for (int i = 0; i < 500; i++) futures.add(pool.submit(() -> post(STREAM, null).statusCode()));
            for (var f : futures) assertEquals(200, f.get());
        }
        assertTrue(upstream.requests().isEmpty());
    }

    private HttpResponse<String> post(String body, String key) throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(URI.create(upstream.baseUrl() + "/chat/completions"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) request.header("Authorization", "Bearer " + key);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<String> dataEvents(String sse) {
        return sse.lines().filter(l -> l.startsWith("data: ")).map(l -> l.substring(6)).toList();
    }

    private static JsonNode tree(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new AssertionError(text, e);
        }
    }
}
