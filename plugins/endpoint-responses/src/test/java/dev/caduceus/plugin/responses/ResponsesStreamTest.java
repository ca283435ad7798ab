package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.testkit.Eventually;
import dev.caduceus.testkit.RecordingEventStream;
import dev.caduceus.testkit.ScriptedRuns;
import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResponsesStreamTest {
    private static final String STREAM = "{\"input\":\"what is here?\",\"stream\":true}";
    private static final List<String> TOOL_TURN = List.of("response.created", "response.in_progress",
            "response.output_item.added", "response.content_part.added", "response.output_text.delta",
            "response.output_item.added", "response.output_item.done", "response.output_item.added",
            "response.output_item.done", "response.output_text.delta", "response.output_text.done",
            "response.content_part.done", "response.output_item.done", "response.completed");

    @TempDir Path dir;
    TestDatabase db;
    ResponsesFixture api;

    @BeforeEach
    void setUp() {
        db = TestDatabase.open(dir, "endpoint-responses");
        api = new ResponsesFixture(db);
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    @Test
    void eventsFollowTheContractOrderWithSequenceNumbers() throws Exception {
        api.answersWithTool();
        var ex = api.post(STREAM);
        assertEquals(200, ex.status());
        assertTrue(api.lastRequest().stream(), "the run streams its answer to this client");
        assertTrue(ex.responseHeader("X-Hermes-Session-Id").isPresent());
        var stream = ex.stream();
        assertTrue(stream.closed());
        assertEquals(TOOL_TURN, ResponsesFixture.names(stream));
        var data = ResponsesFixture.data(stream);
        for (int i = 0; i < data.size(); i++) {
            assertEquals(i, data.get(i).get("sequence_number").asInt());
            assertEquals(TOOL_TURN.get(i), data.get(i).get("type").asText());
        }
        assertTrue(stream.frames().stream().noneMatch(f -> "data".equals(f.kind()))); // no [DONE]
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
        assertEquals("completed", data.get(6).get("item").get("status").asText());
        assertEquals("[{\"type\":\"input_text\",\"text\":\"README.md src\"}]",
                data.get(7).get("item").get("output").toString());
        assertEquals(" There are 2 entries.", data.get(9).get("delta").asText());
        assertEquals("Let me look. There are 2 entries.", data.get(10).get("text").asText());
        var done = data.get(13).get("response");
        assertEquals("completed", done.get("status").asText());
        assertEquals(List.of("function_call", "function_call_output", "message"),
                java.util.stream.StreamSupport.stream(done.get("output").spliterator(), false)
                        .map(i -> i.get("type").asText()).toList());
        assertEquals(1925, done.get("usage").get("total_tokens").asInt());
        // The stored envelope is the completed one; the transcript carries the run's messages.
        var id = done.get("id").asText();
        assertEquals(done.toString(), api.get(id).responseBody().toString());
        api.answers("next");
        api.post("{\"input\":\"and?\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals("user:what is here?|assistant:|tool:README.md src|assistant:Let me look. There are 2 entries.|user:and?|",
                ResponsesFixture.texts(api.lastRequest().messages()));
    }

    @Test
    void aFinalAnswerWithoutDeltasIsSentAsOneDelta() throws Exception {
        api.runs.script(ScriptedRuns.Script.of(RunResult.completed("whole", ResponsesFixture.USAGE, List.of())));
        var data = ResponsesFixture.data(api.post(STREAM).stream());
        assertEquals(List.of("response.created", "response.in_progress", "response.output_item.added",
                "response.content_part.added", "response.output_text.delta", "response.output_text.done",
                "response.content_part.done", "response.output_item.done", "response.completed"),
                data.stream().map(d -> d.get("type").asText()).toList());
        assertEquals("whole", data.get(4).get("delta").asText());
    }

    @Test
    void failureEndsWithResponseFailed() throws Exception {
        api.ends(StopReason.UPSTREAM_ERROR, null, "x".repeat(600));
        var data = ResponsesFixture.data(api.post(STREAM).stream());
        assertEquals(List.of("response.created", "response.in_progress", "response.failed"),
                data.stream().map(d -> d.get("type").asText()).toList());
        var failed = data.get(2).get("response");
        assertEquals("failed", failed.get("status").asText());
        assertEquals(500, failed.get("error").get("message").asText().length());
        assertEquals("failed", api.get(failed.get("id").asText()).responseBody().get("status").asText());
    }

    @Test
    void completedEventTruncatesLongArgumentsAndOutputsButTheStoreDoesNot() throws Exception {
        var args = JsonNodeFactory.instance.objectNode().put("path", "a.txt").put("content", "c".repeat(600));
        api.runs.script(ScriptedRuns.Script.of(RunResult.completed("done", ResponsesFixture.USAGE, List.of()),
                new RunEvent.ToolCallStarted("call_9", "write_file", args, "a.txt", null),
                new RunEvent.ToolCallFinished("call_9", "write_file", 1, false, "o".repeat(1200)),
                new RunEvent.ToolCallFinished("call_unknown", "x", 1, false, "dropped"),
                new RunEvent.TextDelta("done")));
        var data = ResponsesFixture.data(api.post(STREAM).stream());
        var completed = data.getLast().get("response");
        var call = completed.get("output").get(0);
        assertEquals("{\"path\":\"a.txt\",\"content\":\"[600 chars — truncated for response.completed]\"}",
                call.get("arguments").asText());
        assertEquals("o".repeat(500) + "...[700 more chars]",
                completed.get("output").get(1).get("output").get(0).get("text").asText());
        var stored = api.get(completed.get("id").asText()).responseBody();
        assertEquals(1200, stored.get("output").get(1).get("output").get(0).get("text").asText().length());
        assertEquals(3, completed.get("output").size()); // the unmatched completion was dropped
    }

    @Test
    void disconnectCancelsTheRunAndStoresAnIncompleteSnapshot() throws Exception {
        api.runs.script(ScriptedRuns.Script.hanging(new RunEvent.TextDelta("partial")));
        var ex = api.exchange(STREAM).eventStream(new RecordingEventStream().disconnectAfter(3))
                .call(api.handlers.get("POST /v1/responses"));
        assertEquals(1, api.runs.cancellations().size());
        assertEquals(CreateHandler.CANCEL_REASON, api.runs.cancellations().getFirst().reason());
        var id = ex.stream().frames().getFirst().data().get("response").get("id").asText();
        var stored = api.get(id).responseBody();
        assertEquals("incomplete", stored.get("status").asText());
        var message = stored.get("output").get(0);
        assertEquals("incomplete", message.get("status").asText());
        assertEquals("partial", message.get("content").get(0).get("text").asText());
        // Replay: the journal (created, in_progress, item added, part added) then a synthetic incomplete.
        var replay = ResponsesFixture.data(api.get(id, "stream", "true").stream());
        assertEquals(List.of("response.created", "response.in_progress", "response.output_item.added",
                "response.content_part.added", "response.incomplete"),
                replay.stream().map(d -> d.get("type").asText()).toList());
        assertEquals(4, replay.getLast().get("sequence_number").asInt());
        assertEquals("incomplete", replay.getLast().get("response").get("status").asText());
    }

    @Test
    void replayOfAStreamedResponseResumesAfterTheCursor() throws Exception {
        api.answersWithTool();
        var live = ResponsesFixture.data(api.post(STREAM).stream());
        var id = live.getFirst().get("response").get("id").asText();
        var all = ResponsesFixture.data(api.get(id, "stream", "true").stream());
        assertEquals(live.toString(), all.toString());
        var resumed = ResponsesFixture.data(api.get(id, "stream", "true", "starting_after", "9").stream());
        assertEquals(live.subList(10, live.size()).toString(), resumed.toString());
    }

    @Test
    void replayOfANonStreamedResponseIsSynthesized() throws Exception {
        api.answersWithTool();
        var id = api.post("{\"input\":\"what is here?\"}").responseBody().get("id").asText();
        var data = ResponsesFixture.data(api.get(id, "stream", "1").stream());
        assertEquals(List.of("response.created", "response.in_progress", "response.output_item.added",
                "response.output_item.done", "response.output_item.added", "response.output_item.done",
                "response.output_item.added", "response.content_part.added", "response.output_text.delta",
                "response.output_text.done", "response.content_part.done", "response.output_item.done",
                "response.completed"), data.stream().map(d -> d.get("type").asText()).toList());
        for (int i = 0; i < data.size(); i++) assertEquals(i, data.get(i).get("sequence_number").asInt());
        assertEquals("Let me look. There are 2 entries.", data.get(8).get("delta").asText());
        var tail = ResponsesFixture.data(api.get(id, "stream", "true", "starting_after", "11").stream());
        assertEquals(List.of("response.completed"), tail.stream().map(d -> d.get("type").asText()).toList());
        assertEquals(12, tail.getFirst().get("sequence_number").asInt());
    }

    @Test
    void invalidEventCursor() throws Exception {
        api.answers("ok");
        var id = api.post("{\"input\":\"hi\"}").responseBody().get("id").asText();
        for (var bad : List.of("abc", "-1", "1.5")) {
            var ex = api.get(id, "stream", "true", "starting_after", bad);
            assertEquals(400, ex.status());
            assertEquals("invalid_event_cursor", ex.responseBody().get("error").get("code").asText());
            assertEquals("Invalid event cursor: " + bad, ex.responseBody().get("error").get("message").asText());
        }
        assertFalse(api.get(id, "starting_after", "abc").status() == 400); // only checked on replay
    }

    @Test
    void storeFalseStreamsWithoutJournalOrSnapshot() throws Exception {
        api.answers("ok");
        var data = ResponsesFixture.data(api.post("{\"input\":\"hi\",\"stream\":true,\"store\":false}").stream());
        assertEquals("response.completed", data.getLast().get("type").asText());
        assertEquals(404, api.get(data.getFirst().get("response").get("id").asText()).status());
    }

    private static ScriptedRuns.Script slowText() {
        return new ScriptedRuns.Script(List.of(ScriptedRuns.Step.of(new RunEvent.TextDelta("a")),
                ScriptedRuns.Step.of(new RunEvent.TextDelta("b")),
                new ScriptedRuns.Step(new RunEvent.TextDelta("c"), java.time.Duration.ofMillis(300))),
                RunResult.completed("abc", ResponsesFixture.USAGE, List.of()), false);
    }

    @Test
    void textDeltasAreCoalescedInFiftyMillisecondBatches() throws Exception {
        api.runs.script(slowText());
        var deltas = ResponsesFixture.data(api.post(STREAM).stream()).stream()
                .filter(d -> d.get("type").asText().equals("response.output_text.delta"))
                .map(d -> d.get("delta").asText()).toList();
        assertEquals(List.of("ab", "c"), deltas);
    }

    @Test
    void replayOfALiveStreamContinuesToTheTerminalEvent() throws Exception {
        api.runs.script(slowText());
        var post = new java.util.concurrent.atomic.AtomicReference<dev.caduceus.testkit.FakeExchange>();
        var thread = Thread.ofVirtual().start(() -> {
            try {
                post.set(api.post(STREAM));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        var id = Eventually.await(Duration.ofSeconds(5), "the response was stored",
                () -> db.read(sql -> sql.queryOne("SELECT id FROM responses", r -> r.getString(1))).orElse(null),
                java.util.Objects::nonNull);
        var replay = ResponsesFixture.data(api.get(id, "stream", "true").stream());
        thread.join();
        assertEquals("response.completed", replay.getLast().get("type").asText());
        assertEquals(ResponsesFixture.data(post.get().stream()).toString(), replay.toString());
    }
}
