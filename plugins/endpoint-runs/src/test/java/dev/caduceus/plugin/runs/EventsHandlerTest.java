package dev.caduceus.plugin.runs;

import static dev.caduceus.plugin.runs.RunsHost.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.SseStream;
import dev.caduceus.platform.testkit.Turn;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code GET /v1/runs/{id}/events}: replay, resume and the live tail of real runs. */
@Timeout(60)
class EventsHandlerTest {
    static RunsHost api;
    /** A run with three deltas and its terminal event: seq 1..4. */
    static String finished;

    @BeforeAll
    static void start() throws Exception {
        api = RunsHost.start();
        api.upstream.enqueue(Turn.textChunks("a", "b", "c"));
        finished = api.started("{\"input\":\"hi\"}");
        api.awaitStatus(finished, "completed");
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    private static List<String> lines(SseStream stream) throws Exception {
        var lines = new ArrayList<String>();
        for (var f : stream.rest()) lines.add(f.id() + " " + f.type());
        for (var c : stream.comments()) if (!c.isEmpty()) lines.add(": " + c);
        return lines;
    }

    private static HostClient.Response asResponse(SseStream stream) {
        return new HostClient.Response(stream.status(), stream.headers(), stream.body());
    }

    @Test
    void replaysFromTheStartWithIdsThenClosesTheStream() throws Exception {
        try (var stream = api.events(finished)) {
            assertEquals(200, stream.status());
            assertEquals("text/event-stream", stream.header("Content-Type").orElse("").split(";")[0]);
            var first = stream.next();
            assertNull(first.event(), "frames are unnamed: the JSON event field discriminates");
            assertEquals(1, first.data().path("seq").asLong());
            assertEquals(finished, first.data().path("run_id").asText());
            assertEquals("a", first.data().path("delta").asText());
            assertEquals(List.of("2 message.delta", "3 message.delta", "4 run.completed", ": stream closed"), lines(stream));
        }
    }

    @Test
    void resumesAfterTheLastEventIdOrTheAfterParameterWhicheverIsLarger() throws Exception {
        try (var header = api.events(finished, "Last-Event-ID", "2")) {
            assertEquals(List.of("3 message.delta", "4 run.completed", ": stream closed"), lines(header));
        }
        try (var query = api.eventsWithQuery(finished, "after=3")) {
            assertEquals(List.of("4 run.completed", ": stream closed"), lines(query));
        }
        try (var both = api.eventsWithQuery(finished, "after=3", "Last-Event-ID", "1")) {
            assertEquals(List.of("4 run.completed", ": stream closed"), lines(both));
        }
        try (var bothOther = api.eventsWithQuery(finished, "after=1", "Last-Event-ID", "3")) {
            assertEquals(List.of("4 run.completed", ": stream closed"), lines(bothOther));
        }
    }

    @Test
    void aFinishedRunWithNothingAfterTheCursorClosesAtOnce() throws Exception {
        try (var stream = api.eventsWithQuery(finished, "after=4")) {
            assertEquals(List.of(": stream closed"), lines(stream));
        }
    }

    @Test
    void followsTheLiveTailUntilTheTerminalEvent() throws Exception {
        var held = new HeldTurn(Turn.text("after"));
        api.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "terminal", "{\"command\":\"echo hi\"}")));
        api.upstream.enqueue(held);
        var id = api.started("{\"input\":\"hi\"}");
        try (var stream = api.events(id)) {
            assertEquals(List.of("tool.started", "tool.completed"),
                    stream.until("tool.completed").stream().map(SseStream.Frame::type).toList());
            held.awaitArrival(); // the run is live at its second model call, the stream open
            held.release();
            assertEquals(List.of("3 message.delta", "4 run.completed", ": stream closed"), lines(stream));
        }
    }

    @Test
    void toolCompletedCarriesTheResultsRedactedPreviewNotTheResult() throws Exception {
        var key = api.host.apiKey();
        api.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_p", "terminal",
                "{\"command\":\"echo key=" + key + "; seq 1 300\"}")));
        api.upstream.enqueue(Turn.text("done"));
        var id = api.started("{\"input\":\"hi\"}");
        api.awaitStatus(id, "completed");
        try (var stream = api.events(id)) {
            var frames = stream.until("tool.completed");
            var completed = frames.getLast().data();
            assertEquals("call_p", completed.path("tool_call_id").asText());
            var preview = completed.path("output_preview").asText();
            assertTrue(preview.contains("key=[REDACTED]\\n1\\n2\\n3\\n"), preview);
            assertTrue(preview.endsWith("…"), preview);
            assertEquals(200, preview.codePointCount(0, preview.length()), preview);
            var whole = new StringBuilder();
            frames.forEach(f -> whole.append(f.raw()));
            whole.append(stream.body());
            assertTrue(!whole.toString().contains(key), "the key is nowhere in the stream: " + whole);
        }
    }

    @Test
    void aClientThatLeavesNeverStopsTheRun() throws Exception {
        var held = new HeldTurn(Turn.text("still here"));
        api.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "terminal", "{\"command\":\"echo hi\"}")));
        api.upstream.enqueue(held);
        var id = api.started("{\"input\":\"hi\"}");
        try (var stream = api.events(id)) {
            assertEquals("tool.started", stream.next().type());
        } // hangs up mid-run
        held.awaitArrival();
        assertEquals("running", api.status(id).json().path("status").asText());
        held.release();
        assertEquals("still here", api.awaitStatus(id, "completed").path("output").asText());
    }

    @Test
    void anUnknownRunIs404() {
        try (var stream = api.events("run_nope")) {
            assertError(asResponse(stream), 404, "run_not_found", "Run not found: run_nope");
        }
    }

    @Test
    void aMalformedCursorIs400() {
        for (var bad : List.of("abc", "-1", "1.5", "+2", "99999999999999999999")) {
            try (var header = api.events(finished, "Last-Event-ID", bad)) {
                assertError(asResponse(header), 400, "invalid_event_cursor", "Invalid event cursor: " + bad);
            }
            try (var query = api.eventsWithQuery(finished, "after=" + java.net.URLEncoder.encode(bad, java.nio.charset.StandardCharsets.UTF_8))) {
                assertError(asResponse(query), 400, "invalid_event_cursor", "Invalid event cursor: " + bad);
            }
        }
    }

    @Test
    void aCursorBeyondTheLastEventIs400() {
        try (var stream = api.eventsWithQuery(finished, "after=5")) {
            assertError(asResponse(stream), 400, "invalid_event_cursor",
                    "Invalid event cursor: 5 is beyond the last event of this run (4)");
        }
    }

    @Test
    void aLiveRunsCursorBeyondItsRecordIs400OnceTheGraceIsOver() throws Exception {
        var held = new HeldTurn(Turn.text("late"));
        api.upstream.enqueue(held);
        var live = api.started("{\"input\":\"hi\"}");
        held.awaitArrival();
        try (var stream = api.eventsWithQuery(live, "after=1")) {
            assertError(asResponse(stream), 400, "invalid_event_cursor", null);
        } finally {
            held.release();
        }
        api.awaitStatus(live, "completed");
    }
}
