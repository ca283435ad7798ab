package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.SseStream;
import dev.caduceus.platform.testkit.Turn;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Streaming {@code POST /v1/responses} and replays on the real host. */
class ResponsesStreamTest {
    private static final String STREAM = "{\"input\":\"what is here?\",\"stream\":true}";
    private static final List<String> TOOL_TURN = List.of("response.created", "response.in_progress",
            "response.output_item.added", "response.content_part.added", "response.output_text.delta",
            "response.output_item.added", "response.output_item.done", "response.output_text.delta",
            "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed");

    private static ResponsesHost api;

    @BeforeAll
    static void boot() {
        api = ResponsesHost.start();
    }

    @AfterAll
    static void shutDown() {
        if (api != null) api.close();
    }

    @BeforeEach
    void reset() {
        api.reset();
    }

    /** Text, a call of a tool no plugin offers (it fails at once), then a model call held until released. */
    private static HeldTurn textThenHeld() {
        var held = new HeldTurn(Turn.text("too late"));
        api.upstream.enqueue(Turn.textChunks("partial").withToolCalls(Turn.ToolCall.of("call_1", "terminal", "{}")));
        api.upstream.enqueue(held);
        return held;
    }

    @Test
    void eventsFollowTheContractOrderWithSequenceNumbers() throws Exception {
        api.answersWithTool();
        List<SseStream.Frame> frames;
        try (var sse = api.postStream(STREAM)) {
            assertEquals(200, sse.status());
            assertTrue(sse.header("X-Hermes-Session-Id").isPresent());
            frames = sse.rest();
        }
        assertTrue(api.lastModelRequest().path("stream").asBoolean(), "the run streams its answer to this client");
        assertEquals(TOOL_TURN, ResponsesHost.names(frames));
        assertTrue(frames.stream().allMatch(f -> f.data() != null), "no [DONE]");
        var data = ResponsesHost.data(frames);
        for (int i = 0; i < data.size(); i++) {
            assertEquals(i, data.get(i).get("sequence_number").asInt());
            assertEquals(TOOL_TURN.get(i), data.get(i).get("type").asText());
        }
        var created = data.get(0).get("response");
        assertEquals("in_progress", created.get("status").asText());
        assertEquals(0, created.get("output").size());
        assertTrue(created.get("usage").isNull());
        assertEquals("{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[],\"logprobs\":[]}",
                data.get(3).get("part").toString());
        assertEquals("Let me look.", data.get(4).get("delta").asText());
        var call = data.get(5).get("item");
        assertEquals("in_progress", call.get("status").asText());
        assertEquals("{\"command\":\"ls\"}", call.get("arguments").asText());
        assertEquals(1, data.get(5).get("output_index").asInt());
        assertEquals("mcp_call", call.get("type").asText());
        assertTrue(call.get("output").isNull(), "a running step has no output yet");
        assertEquals("completed", data.get(6).get("item").get("status").asText());
        assertEquals(ResponsesHost.UNKNOWN_TERMINAL, data.get(6).get("item").get("output").asText(),
                "the step's result is its output, in the same item");
        assertEquals("There are 2 entries.", data.get(7).get("delta").asText());
        assertEquals("Let me look.There are 2 entries.", data.get(8).get("text").asText());
        var done = data.get(11).get("response");
        assertEquals("completed", done.get("status").asText());
        assertEquals(List.of("mcp_call", "message"),
                java.util.stream.StreamSupport.stream(done.get("output").spliterator(), false)
                        .map(i -> i.get("type").asText()).toList());
        assertEquals(1925, done.get("usage").get("total_tokens").asInt());
        // The stored envelope is the completed one; the chain carries the run's messages.
        var id = done.get("id").asText();
        assertEquals(done.toString(), api.get(id).json().toString());
        api.answers("next");
        api.post("{\"input\":\"and?\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals("user:what is here?|assistant:Let me look.|tool:" + ResponsesHost.UNKNOWN_TERMINAL
                + "|assistant:There are 2 entries.|user:and?|", api.lastModelTexts());
        assertEquals("call_1", api.lastModelMessages().get(1).at("/tool_calls/0/id").asText());
    }

    @Test
    void aWholeAnswerIsOneDelta() throws Exception {
        api.upstream.enqueue(Turn.textChunks("whole").usage(1, 1));
        var data = ResponsesHost.data(api.stream(STREAM));
        assertEquals(List.of("response.created", "response.in_progress", "response.output_item.added",
                "response.content_part.added", "response.output_text.delta", "response.output_text.done",
                "response.content_part.done", "response.output_item.done", "response.completed"),
                ResponsesHost.types(data));
        assertEquals("whole", data.get(4).get("delta").asText());
    }

    @Test
    void failureEndsWithResponseFailed() throws Exception {
        api.upstream.enqueue(Turn.error(401, "x".repeat(600)));
        var data = ResponsesHost.data(api.stream(STREAM));
        assertEquals(List.of("response.created", "response.in_progress", "response.failed"), ResponsesHost.types(data));
        var failed = data.get(2).get("response");
        assertEquals("failed", failed.get("status").asText());
        // The event caps the message at 500 characters; provider-openai already caps an upstream's at 300.
        var message = failed.get("error").get("message").asText();
        assertTrue(message.startsWith("Upstream model returned 401: xxx") && message.length() <= 500, message);
        assertEquals("failed", api.get(failed.get("id").asText()).json().get("status").asText());
    }

    @Test
    void completedEventTruncatesLongArgumentsAndOutputsButTheStoreDoesNot() throws Exception {
        // A long argument, and a long output: the unknown-tool error of a tool with a 1,200-character name.
        var longName = "t".repeat(1200);
        api.upstream.enqueue(Turn.toolCalls(
                Turn.ToolCall.of("call_9", "write_file", "{\"path\":\"a.txt\",\"content\":\"" + "c".repeat(600) + "\"}"),
                Turn.ToolCall.of("call_10", longName, "{}")), Turn.text("done"));
        var data = ResponsesHost.data(api.stream(STREAM));
        var completed = data.getLast().get("response");
        assertEquals("response.completed", data.getLast().get("type").asText());
        var output = completed.get("output");
        assertEquals(List.of("mcp_call", "mcp_call", "message"),
                java.util.stream.StreamSupport.stream(output.spliterator(), false).map(i -> i.get("type").asText()).toList());
        assertEquals("{\"path\":\"a.txt\",\"content\":\"[600 chars — truncated for response.completed]\"}",
                output.get(0).get("arguments").asText());
        var shown = output.get(1).get("output").asText();
        var stored = api.get(completed.get("id").asText()).json().get("output").get(1).get("output").asText();
        assertTrue(stored.length() > 1000, stored);
        assertTrue(stored.contains(longName), "the store keeps the whole output");
        assertEquals(stored.substring(0, 500) + "...[" + (stored.length() - 500) + " more chars]", shown);
    }

    @Test
    void disconnectCancelsTheRunAndStoresAnIncompleteSnapshot() throws Exception {
        var held = textThenHeld();
        String id;
        try (var sse = api.postStream(STREAM)) {
            var frames = sse.until("response.output_text.delta");
            id = frames.getFirst().data().get("response").get("id").asText();
            held.awaitArrival();
            sse.close(); // the client leaves while the model thinks
            api.awaitNoActiveRun("the run is cancelled when its client leaves");
        } finally {
            held.release();
        }
        var stored = incompleteSnapshot(id);
        // The snapshot lists the server's step (the call with its output), then the unfinished message.
        var message = stored.get("output").get(1);
        assertEquals("message", message.get("type").asText(), stored.toString());
        assertEquals("incomplete", message.get("status").asText());
        assertEquals("completed", stored.get("output").get(0).get("status").asText());
        assertEquals("mcp_call", stored.get("output").get(0).get("type").asText());
        assertEquals("partial", message.get("content").get(0).get("text").asText());
        // Replay: the journal as streamed, then a synthetic incomplete numbered after it.
        var replay = ResponsesHost.data(api.replay(id, "stream", "true"));
        assertEquals(List.of("response.created", "response.in_progress", "response.output_item.added",
                "response.content_part.added", "response.output_text.delta"),
                ResponsesHost.types(replay).subList(0, 5));
        assertEquals("response.incomplete", replay.getLast().get("type").asText());
        assertEquals(replay.size() - 1, replay.getLast().get("sequence_number").asInt());
        assertEquals("incomplete", replay.getLast().get("response").get("status").asText());
    }

    /** The stored response once its stream has written the incomplete snapshot. */
    private static com.fasterxml.jackson.databind.JsonNode incompleteSnapshot(String id) throws InterruptedException {
        return Eventually.await(java.time.Duration.ofSeconds(10), "the incomplete snapshot",
                () -> api.get(id).json(), r -> r.path("status").asText().equals("incomplete"));
    }

    @Test
    void replayOfAStreamedResponseResumesAfterTheCursor() throws Exception {
        api.answersWithTool();
        var live = ResponsesHost.data(api.stream(STREAM));
        var id = live.getFirst().get("response").get("id").asText();
        var all = ResponsesHost.data(api.replay(id, "stream", "true"));
        assertEquals(live.toString(), all.toString());
        var resumed = ResponsesHost.data(api.replay(id, "stream", "true", "starting_after", "7"));
        assertEquals(live.subList(8, live.size()).toString(), resumed.toString());
    }

    @Test
    void replayOfANonStreamedResponseIsSynthesized() throws Exception {
        api.answersWithTool();
        var id = api.post("{\"input\":\"what is here?\"}").json().get("id").asText();
        var data = ResponsesHost.data(api.replay(id, "stream", "1"));
        assertEquals(List.of("response.created", "response.in_progress", "response.output_item.added",
                "response.output_item.done",
                "response.output_item.added", "response.content_part.added", "response.output_text.delta",
                "response.output_text.done", "response.content_part.done", "response.output_item.done",
                "response.completed"), ResponsesHost.types(data));
        for (int i = 0; i < data.size(); i++) assertEquals(i, data.get(i).get("sequence_number").asInt());
        assertEquals("There are 2 entries.", data.get(6).get("delta").asText());
        var tail = ResponsesHost.data(api.replay(id, "stream", "true", "starting_after", "9"));
        assertEquals(List.of("response.completed"), ResponsesHost.types(tail));
        assertEquals(10, tail.getFirst().get("sequence_number").asInt());
    }

    @Test
    void invalidEventCursor() {
        api.answers("ok");
        var id = api.post("{\"input\":\"hi\"}").json().get("id").asText();
        for (var bad : List.of("abc", "-1", "1.5")) {
            var ex = api.get(id, "stream", "true", "starting_after", bad);
            assertEquals(400, ex.status());
            assertEquals("invalid_event_cursor", ex.error().get("code").asText());
            assertEquals("Invalid event cursor: " + bad, ex.error().get("message").asText());
        }
        assertFalse(api.get(id, "starting_after", "abc").status() == 400); // only checked on replay
    }

    @Test
    void storeFalseStreamsWithoutJournalOrSnapshot() throws Exception {
        api.answers("ok");
        var data = ResponsesHost.data(api.stream("{\"input\":\"hi\",\"stream\":true,\"store\":false}"));
        assertEquals("response.completed", data.getLast().get("type").asText());
        assertEquals(404, api.get(data.getFirst().get("response").get("id").asText()).status());
    }

    private static List<String> deltas(List<SseStream.Frame> frames) {
        return ResponsesHost.data(frames).stream().filter(d -> d.get("type").asText().equals("response.output_text.delta"))
                .map(d -> d.get("delta").asText()).toList();
    }

    @Test
    void textDeltasArrivingTogetherAreOneDelta() throws Exception {
        api.upstream.enqueue(Turn.textChunks("a", "b", "c"));
        assertEquals(List.of("abc"), deltas(api.stream(STREAM)));
    }

    @Test
    void aBatchIsSentWhenItsWindowEndsNotAtTheEnd() throws Exception {
        api.upstream.enqueue(Turn.textChunks("a", "b").chunkDelayMillis(300)); // much longer than the 50 ms window
        assertEquals(List.of("a", "b"), deltas(api.stream(STREAM)));
    }

    @Test
    void replayOfALiveStreamContinuesToTheTerminalEvent() throws Exception {
        var held = new HeldTurn(Turn.textChunks("a", "b", "c"));
        api.upstream.enqueue(held);
        try (var sse = api.postStream(STREAM)) {
            var live = new java.util.ArrayList<>(ResponsesHost.data(sse.until("response.in_progress")));
            var id = live.getFirst().get("response").get("id").asText();
            held.awaitArrival();
            try (var replay = api.http().sse(ResponsesHost.PATH + "/" + id + "?stream=true")) {
                assertEquals(200, replay.status());
                // The replay has sent the journal so far and follows the live run: the model has not answered.
                var replayed = new java.util.ArrayList<>(ResponsesHost.data(replay.until("response.in_progress")));
                held.release();
                live.addAll(ResponsesHost.data(sse.rest()));
                replayed.addAll(ResponsesHost.data(replay.rest()));
                assertEquals("response.completed", replayed.getLast().get("type").asText());
                assertEquals(live.toString(), replayed.toString());
            }
        } finally {
            held.release();
        }
    }
}
