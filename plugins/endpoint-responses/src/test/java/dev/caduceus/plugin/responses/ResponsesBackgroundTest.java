package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Background responses (issue 43) on the real host: created at once {@code queued}, run detached from the
 * connection, read back with {@code GET}, followed and resumed as a stream from the journal, cancelled, queued at
 * the concurrency cap, and failed (never stuck) when their server stops. The model is held ({@link HeldTurn}) where
 * a test needs the response to be running.
 */
@Timeout(60)
class ResponsesBackgroundTest {
    static final Duration DEADLINE = Duration.ofSeconds(20);
    static ResponsesHost api;

    @BeforeAll
    static void boot() {
        api = ResponsesHost.start("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "1", "CADUCEUS__RESPONSES__BACKGROUND_QUEUE", "1");
    }

    @AfterAll
    static void shutDown() {
        api.close();
    }

    @BeforeEach
    void reset() {
        api.reset();
    }

    @Test
    void answersAtOnceQueuedThenRunsDetachedToCompleted() throws Exception {
        var held = new HeldTurn(Turn.textChunks("Hello", " world").usage(7, 3));
        api.upstream.enqueue(held);
        var created = api.post("{\"input\":\"long work\",\"background\":true}");
        assertEquals(200, created.status(), created.body());
        var body = created.json();
        var id = body.get("id").asText();
        assertEquals("queued", body.get("status").asText(), "answered before the model was even asked");
        assertTrue(body.get("background").asBoolean());
        assertTrue(body.get("completed_at").isNull());
        held.awaitArrival();
        // The run starts before its stream saves in_progress: the status follows within moments of the model call.
        Eventually.await(DEADLINE, id + " in_progress", () -> api.get(id).json(),
                r -> r.get("status").asText().equals("in_progress"));
        held.release();
        var done = awaitEnd(id);
        assertEquals("completed", done.get("status").asText(), done.toString());
        assertEquals("Hello world", done.get("output").get(0).get("content").get(0).get("text").asText());
        assertEquals(10, done.get("usage").get("total_tokens").asInt());
        assertTrue(done.get("completed_at").asLong() >= done.get("created_at").asLong(), done.toString());
        assertTrue(done.get("background").asBoolean());
        var replay = ResponsesHost.data(api.replay(id, "stream", "true"));
        assertEquals(List.of("response.created", "response.queued", "response.in_progress"),
                replay.subList(0, 3).stream().map(f -> f.get("type").asText()).toList());
        assertEquals("queued", replay.getFirst().get("response").get("status").asText());
        assertEquals("response.completed", replay.getLast().get("type").asText());
        for (int i = 0; i < replay.size(); i++) assertEquals(i, replay.get(i).get("sequence_number").asInt(), "gap-free");
    }

    @Test
    void aRetriedCreateWithItsIdempotencyKeyGetsTheResponseItStarted() throws Exception {
        var held = new HeldTurn(Turn.text("once"));
        api.upstream.enqueue(held);
        int asked = api.upstream.requests().size();
        var body = "{\"input\":\"do it once\",\"background\":true}";
        var first = api.post(body, "Idempotency-Key", "create-1");
        assertEquals(200, first.status(), first.body());
        var id = first.json().get("id").asText();
        held.awaitArrival();
        var retried = api.post(body, "Idempotency-Key", "create-1");
        assertEquals(200, retried.status(), retried.body());
        assertEquals(id, retried.json().get("id").asText(), "the same response, not a second one");
        var other = api.post("{\"input\":\"something else\",\"background\":true}", "Idempotency-Key", "create-1");
        assertEquals(409, other.status(), other.body());
        assertEquals("idempotency_key_conflict", other.json().get("error").get("code").asText());
        held.release();
        assertEquals("completed", awaitEnd(id).get("status").asText());
        var afterEnd = api.post(body, "Idempotency-Key", "create-1");
        assertEquals(id, afterEnd.json().get("id").asText());
        assertEquals("completed", afterEnd.json().get("status").asText(), "a retry after the end gets the end");
        assertEquals(asked + 1, api.upstream.requests().size(), "the model was asked once");
        var anotherKey = api.as(api.host.addKey("retrier")).post(body, "Idempotency-Key", "create-1");
        assertEquals(200, anotherKey.status(), anotherKey.body());
        assertFalse(anotherKey.json().get("id").asText().equals(id), "keys are per caller");
        awaitEnd(anotherKey.json().get("id").asText());
    }

    @Test
    void backgroundNeedsStoreAndABoolean() {
        int asked = api.upstream.requests().size();
        var noStore = api.post("{\"input\":\"x\",\"background\":true,\"store\":false}");
        assertEquals(400, noStore.status());
        assertEquals("background_requires_store", noStore.json().get("error").get("code").asText());
        assertEquals("background", noStore.json().get("error").get("param").asText());
        var notBoolean = api.post("{\"input\":\"x\",\"background\":\"soon\"}");
        assertEquals(400, notBoolean.status());
        assertEquals("invalid_type", notBoolean.json().get("error").get("code").asText());
        assertEquals(asked, api.upstream.requests().size(), "nothing ran");
    }

    @Test
    void cancelStopsARunningResponseAndAnswersItCancelled() throws Exception {
        var held = new HeldTurn(Turn.text("never shown"));
        api.upstream.enqueue(held);
        var id = api.post("{\"input\":\"long work\",\"background\":true}").json().get("id").asText();
        held.awaitArrival(); // the model is being asked: the run is in progress
        var cancelled = cancel(id);
        assertEquals(200, cancelled.status(), cancelled.body());
        assertEquals("cancelled", cancelled.json().get("status").asText(), cancelled.body());
        assertEquals("cancelled", api.get(id).json().get("status").asText());
        var again = cancel(id);
        assertEquals(200, again.status());
        assertEquals(cancelled.json(), again.json(), "cancelling an ended response returns it unchanged");
        var replay = ResponsesHost.data(api.replay(id, "stream", "true"));
        assertEquals("response.cancelled", replay.getLast().get("type").asText(), replay.toString());
        held.release();
    }

    @Test
    void cancelWhileTheModelStreamsKeepsTheTextSoFar() throws Exception {
        api.upstream.enqueue(Turn.textChunks("one ", "two ", "three ", "four ", "five").chunkDelayMillis(400));
        String id;
        try (var sse = api.postStream("{\"input\":\"write slowly\",\"background\":true,\"stream\":true}")) {
            var frames = sse.until("response.output_text.delta"); // the model is mid-answer
            id = frames.getFirst().data().get("response").get("id").asText();
            var cancelled = cancel(id);
            assertEquals("cancelled", cancelled.json().get("status").asText(), cancelled.body());
            var rest = sse.rest(); // the creator's stream ends with the cancel
            assertEquals("response.cancelled", rest.getLast().event(), rest.toString());
        }
        var stored = api.get(id).json();
        var message = stored.get("output").get(0);
        assertEquals("incomplete", message.get("status").asText(), stored.toString());
        var text = message.get("content").get(0).get("text").asText();
        assertTrue(text.startsWith("one ") && !text.contains("five"), "the text so far, not the rest: " + text);
    }

    @Test
    void cancelIsForBackgroundResponsesOfTheCaller() throws Exception {
        api.answers("done");
        var foreground = api.post("{\"input\":\"x\"}").json().get("id").asText();
        var notBackground = cancel(foreground);
        assertEquals(400, notBackground.status(), notBackground.body());
        assertEquals("invalid_request_error", notBackground.json().get("error").get("type").asText());
        assertEquals("completed", api.get(foreground).json().get("status").asText(), "left as it was");
        assertEquals(404, cancel("resp_unknown").status());

        var held = new HeldTurn(Turn.text("mine"));
        api.upstream.enqueue(held);
        var id = api.post("{\"input\":\"long work\",\"background\":true}").json().get("id").asText();
        held.awaitArrival();
        var other = api.as(api.host.addKey("other"));
        var foreign = other.http().post(ResponsesHost.PATH + "/" + id + "/cancel", "");
        assertEquals(404, foreign.status(), "another key's response is an unknown one");
        assertEquals(404, other.get(id).status());
        held.release();
        assertEquals("completed", awaitEnd(id).get("status").asText(), "another key's cancel did nothing");
    }

    @Test
    void atTheCapABackgroundResponseWaitsAndABoundedQueueRefusesMore() throws Exception {
        var first = new HeldTurn(Turn.text("first"));
        api.upstream.enqueue(first);
        var running = api.post("{\"input\":\"one\",\"background\":true}").json().get("id").asText();
        first.awaitArrival(); // the server's only run slot is taken
        api.answers("second");
        var waiting = api.post("{\"input\":\"two\",\"background\":true}");
        assertEquals(200, waiting.status(), "never a 429 at the cap: " + waiting.body());
        var waitingId = waiting.json().get("id").asText();
        assertEquals("queued", api.get(waitingId).json().get("status").asText());
        var foreground = api.post("{\"input\":\"now\"}");
        assertEquals(429, foreground.status(), "a foreground turn is refused at the cap, as before");
        var beyond = api.post("{\"input\":\"three\",\"background\":true}");
        assertEquals(429, beyond.status(), "responses.background_queue is 1: " + beyond.body());
        assertEquals("background_queue_full", beyond.json().get("error").get("code").asText());
        first.release();
        assertEquals("completed", awaitEnd(running).get("status").asText());
        var second = awaitEnd(waitingId);
        assertEquals("completed", second.get("status").asText(), second.toString());
        assertEquals("second", second.get("output").get(0).get("content").get(0).get("text").asText());
    }

    @Test
    void aQueuedResponseCancelledNeverRuns() throws Exception {
        var first = new HeldTurn(Turn.text("first"));
        api.upstream.enqueue(first);
        int asked = api.upstream.requests().size();
        var running = api.post("{\"input\":\"one\",\"background\":true}").json().get("id").asText();
        first.awaitArrival();
        var queued = api.post("{\"input\":\"two\",\"background\":true}").json().get("id").asText();
        var cancelled = cancel(queued);
        assertEquals("cancelled", cancelled.json().get("status").asText(), cancelled.body());
        first.release();
        assertEquals("completed", awaitEnd(running).get("status").asText());
        assertEquals(asked + 1, api.upstream.requests().size(), "the cancelled one never reached the model");
        var replay = ResponsesHost.data(api.replay(queued, "stream", "true"));
        assertEquals(List.of("response.created", "response.queued", "response.cancelled"),
                replay.stream().map(f -> f.get("type").asText()).toList());
    }

    @Test
    void aStreamLeftByItsClientGoesOnAndResumesAfterItsLastEvent() throws Exception {
        var held = new HeldTurn(Turn.textChunks("one ", "two ", "three").usage(1, 1));
        api.upstream.enqueue(Turn.textChunks("Looking.").withToolCalls(Turn.ToolCall.of("call_1", "terminal", "{}")));
        api.upstream.enqueue(held);
        String id;
        long seen;
        var before = new ArrayList<JsonNode>();
        try (var sse = api.postStream("{\"input\":\"long work\",\"background\":true,\"stream\":true}")) {
            assertEquals(200, sse.status());
            for (var frame : sse.until("response.output_item.done")) before.add(frame.data());
            id = before.getFirst().get("response").get("id").asText();
            assertEquals("queued", before.getFirst().get("response").get("status").asText());
            seen = before.getLast().get("sequence_number").asLong();
            held.awaitArrival();
        } // the client hangs up mid-turn
        held.release();
        assertEquals("completed", awaitEnd(id).get("status").asText(), "a hang-up never cancels a background response");
        var after = ResponsesHost.data(api.replay(id, "stream", "true", "starting_after", String.valueOf(seen)));
        assertEquals(seen + 1, after.getFirst().get("sequence_number").asLong(), "resumes right after the last event seen");
        for (int i = 1; i < after.size(); i++)
            assertEquals(after.get(i - 1).get("sequence_number").asLong() + 1, after.get(i).get("sequence_number").asLong());
        assertEquals("response.completed", after.getLast().get("type").asText());
        var whole = ResponsesHost.data(api.replay(id, "stream", "true"));
        var joined = new ArrayList<>(before);
        joined.addAll(after);
        assertEquals(whole, joined, "what the client saw plus the resumed part is the whole stream, nothing twice");
    }

    @Test
    void aBackgroundResponseLiveWhenItsServerStoppedGoesOnAfterTheNextStart(@TempDir Path home) throws Exception {
        var held = new HeldTurn(Turn.text("never sent"));
        String id;
        try (var stopped = ResponsesHost.start(home, "CADUCEUS__SERVER__DRAIN_TIMEOUT_SECONDS", "1")) {
            stopped.upstream.enqueue(held);
            id = stopped.post("{\"input\":\"long work\",\"background\":true}").json().get("id").asText();
            held.awaitArrival();
        } finally {
            held.release(); // the stop cut its model call; the run stays live for the next process
        }
        try (var restarted = ResponsesHost.start(home,
                upstream -> upstream.enqueue(Turn.textChunks("done ", "after ", "the restart").usage(5, 3)))) {
            var done = awaitEnd(restarted, id);
            assertEquals("completed", done.get("status").asText(), done.toString());
            assertEquals("done after the restart", done.get("output").get(0).get("content").get(0).get("text").asText());
            assertEquals(1, done.get("output").size(), done.toString());
            var replay = ResponsesHost.data(restarted.replay(id, "stream", "true"));
            for (int i = 0; i < replay.size(); i++)
                assertEquals(i, replay.get(i).get("sequence_number").asInt(), "gap-free across the restart: " + replay);
            var types = replay.stream().map(f -> f.get("type").asText()).toList();
            assertEquals(List.of("response.created", "response.queued", "response.in_progress"), types.subList(0, 3));
            assertEquals(1, types.stream().filter("response.in_progress"::equals).count(), types.toString());
            assertEquals("response.completed", types.getLast());
        }
    }

    @Test
    void theMessageTheModelWasWritingWhenItsServerStoppedEndsIncompleteAndIsWrittenAgain(@TempDir Path home)
            throws Exception {
        var before = new ArrayList<JsonNode>();
        // The role chunk comes at once, the first words 8 s later and the rest 8 s after them: the stop, right after
        // the first words, cancels the run at once (no drain time), long before the rest.
        try (var stopped = ResponsesHost.start(home, "CADUCEUS__SERVER__DRAIN_TIMEOUT_SECONDS", "0")) {
            stopped.upstream.enqueue(Turn.textChunks("Half an ", "answer").chunkDelayMillis(8_000));
            try (var sse = stopped.postStream("{\"input\":\"long work\",\"background\":true,\"stream\":true}")) {
                for (var frame : sse.until("response.output_text.delta")) before.add(frame.data());
            }
        } // stopped while the model wrote
        var id = before.getFirst().get("response").get("id").asText();
        try (var restarted = ResponsesHost.start(home, upstream -> upstream.enqueue(Turn.text("The whole answer")))) {
            var done = awaitEnd(restarted, id);
            assertEquals("completed", done.get("status").asText(), done.toString());
            assertEquals(1, done.get("output").size(), "only the message written again: " + done);
            assertEquals("The whole answer", done.get("output").get(0).get("content").get(0).get("text").asText());
            var replay = ResponsesHost.data(restarted.replay(id, "stream", "true"));
            for (int i = 0; i < replay.size(); i++)
                assertEquals(i, replay.get(i).get("sequence_number").asInt(), "gap-free across the restart: " + replay);
            assertEquals(before, replay.subList(0, before.size()), "what its client saw stays as it was");
            var messages = replay.stream().filter(f -> f.get("type").asText().equals("response.output_item.done")
                    && f.get("item").get("type").asText().equals("message")).map(f -> f.get("item")).toList();
            assertEquals(2, messages.size(), replay.toString());
            assertEquals("incomplete", messages.get(0).get("status").asText(), "the interrupted message ends incomplete");
            assertEquals("Half an ", messages.get(0).get("content").get(0).get("text").asText());
            assertEquals("completed", messages.get(1).get("status").asText());
            assertEquals("The whole answer", messages.get(1).get("content").get(0).get("text").asText());
        }
    }

    @Test
    void withoutResumeABackgroundResponseRunningWhenItsServerDiedIsFailedAfterTheNextStart(@TempDir Path home)
            throws Exception {
        try (var dead = ResponsesHost.start(home, "CADUCEUS__RUNS__RESUME", "false")) {
            var held = new HeldTurn(Turn.text("too late"));
            dead.upstream.enqueue(held);
            var id = dead.post("{\"input\":\"long work\",\"background\":true}").json().get("id").asText();
            held.awaitArrival();
            try (var restarted = ResponsesHost.start(home, "CADUCEUS__RUNS__RESUME", "false")) { // the next process
                var stored = restarted.get(id).json();
                assertEquals("failed", stored.get("status").asText(), stored.toString());
                assertTrue(stored.get("error").get("message").asText().contains("restarted"), stored.toString());
                var replay = ResponsesHost.data(restarted.replay(id, "stream", "true"));
                assertEquals("response.failed", replay.getLast().get("type").asText(), replay.toString());
                assertEquals(replay.size() - 1, replay.getLast().get("sequence_number").asInt());
                var resumed = ResponsesHost.data(restarted.replay(id, "stream", "true", "starting_after", "1"));
                assertEquals(replay.subList(2, replay.size()), resumed, "resumed after a restart: the rest, gap-free");
                var again = cancel(restarted, id);
                assertEquals("failed", again.json().get("status").asText(), "an ended response is left as it is");
            } finally {
                held.release();
            }
        }
    }

    @Test
    void oneStillQueuedWhenItsServerDiedFailsAfterTheNextStartAndSaysNothingRan(@TempDir Path home) throws Exception {
        var held = new HeldTurn(Turn.text("too late"));
        try (var dead = ResponsesHost.start(home, "CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "1",
                "CADUCEUS__RUNS__RESUME", "false")) {
            dead.upstream.enqueue(held);
            var running = dead.post("{\"input\":\"long work\",\"background\":true}").json().get("id").asText();
            held.awaitArrival();
            var waiting = dead.post("{\"input\":\"next\",\"background\":true}").json().get("id").asText();
            assertEquals("queued", dead.get(waiting).json().get("status").asText());
            try (var restarted = ResponsesHost.start(home, "CADUCEUS__RUNS__RESUME", "false")) { // the next process
                var stranded = awaitEnd(restarted, waiting);
                assertEquals("failed", stranded.get("status").asText(), stranded.toString());
                assertEquals(BackgroundResponses.STOPPED_QUEUED, stranded.get("error").get("message").asText());
                var replay = ResponsesHost.data(restarted.replay(waiting, "stream", "true"));
                assertEquals(List.of("response.created", "response.queued", "response.failed"),
                        replay.stream().map(f -> f.get("type").asText()).toList());
                assertEquals("failed", restarted.get(running).json().get("status").asText(), "its run was interrupted");
            } finally {
                held.release();
            }
        }
    }

    @Test
    void cancelOfUnknownIdsAndBadCursors() {
        assertEquals(404, cancel("resp_" + "0".repeat(28)).status());
        var bad = api.http().get(ResponsesHost.PATH + "/resp_x?stream=true&starting_after=-1");
        assertTrue(bad.status() == 400 || bad.status() == 404, bad.body());
        assertFalse(cancel("resp_unknown").body().contains("<html"));
    }

    private static dev.caduceus.platform.testkit.HostClient.Response cancel(String id) {
        return cancel(api, id);
    }

    private static dev.caduceus.platform.testkit.HostClient.Response cancel(ResponsesHost host, String id) {
        return host.http().post(ResponsesHost.PATH + "/" + id + "/cancel", "");
    }

    /** The response once it is neither queued nor in progress. */
    private static JsonNode awaitEnd(String id) throws InterruptedException {
        return awaitEnd(api, id);
    }

    private static JsonNode awaitEnd(ResponsesHost host, String id) throws InterruptedException {
        return Eventually.await(DEADLINE, id + " ended", () -> host.get(id).json(),
                r -> !r.get("status").asText().equals("queued") && !r.get("status").asText().equals("in_progress"));
    }
}
