package dev.caduceus.plugin.runs;

import static dev.caduceus.plugin.runs.RunsFixture.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.testkit.Eventually;
import dev.caduceus.testkit.FakeExchange;
import dev.caduceus.testkit.RecordingEventStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class EventsHandlerTest {
    final RunsFixture api = new RunsFixture();

    /** A run with three events and its terminal one: seq 1..4. */
    private String finishedRun() throws Exception {
        var id = api.newRun();
        api.runs.append(id, new RunEvent.TextDelta("a"), new RunEvent.TextDelta("b"), new RunEvent.TextDelta("c"),
                new RunEvent.Completed("abc", StopReason.STOP, null, new Usage(1, 2, 3)));
        return id;
    }

    private static List<String> lines(RecordingEventStream stream) {
        var lines = new ArrayList<String>();
        for (var f : stream.frames())
            lines.add(f.kind().equals("event") ? f.id() + " " + f.data().get("event").asText() : ": " + f.text());
        return lines;
    }

    @Test
    void replaysFromTheStartWithIdsThenClosesTheStream() throws Exception {
        var id = finishedRun();
        var ex = api.events(id);
        assertEquals(200, ex.status());
        assertEquals(List.of("1 message.delta", "2 message.delta", "3 message.delta", "4 run.completed", ": stream closed"),
                lines(ex.stream()));
        assertTrue(ex.stream().closed());
        var first = ex.stream().frames().getFirst();
        assertNull(first.name());
        assertEquals(1, first.data().get("seq").asLong());
        assertEquals(id, first.data().get("run_id").asText());
    }

    @Test
    void resumesAfterTheLastEventIdOrTheAfterParameterWhicheverIsLarger() throws Exception {
        var id = finishedRun();
        var header = api.eventsRequest(id).requestHeader("Last-Event-ID", "2").call(api.eventsHandler());
        assertEquals(List.of("3 message.delta", "4 run.completed", ": stream closed"), lines(header.stream()));
        var query = api.eventsRequest(id).queryParam("after", "3").call(api.eventsHandler());
        assertEquals(List.of("4 run.completed", ": stream closed"), lines(query.stream()));
        var both = api.eventsRequest(id).requestHeader("Last-Event-ID", "1").queryParam("after", "3")
                .call(api.eventsHandler());
        assertEquals(List.of("4 run.completed", ": stream closed"), lines(both.stream()));
        var bothOther = api.eventsRequest(id).requestHeader("Last-Event-ID", "3").queryParam("after", "1")
                .call(api.eventsHandler());
        assertEquals(List.of("4 run.completed", ": stream closed"), lines(bothOther.stream()));
    }

    @Test
    void aFinishedRunWithNothingAfterTheCursorClosesAtOnce() throws Exception {
        var id = finishedRun();
        var ex = api.eventsRequest(id).queryParam("after", "4").call(api.eventsHandler());
        assertEquals(List.of(": stream closed"), lines(ex.stream()));
        assertTrue(ex.stream().closed());
    }

    @Test
    void followsTheLiveTailUntilTheTerminalEvent() throws Exception {
        var id = api.newRun();
        api.runs.append(id, new RunEvent.TextDelta("early"));
        var stream = new RecordingEventStream();
        var handler = inBackground(() -> api.eventsRequest(id).eventStream(stream).call(api.eventsHandler()));
        Eventually.await(Duration.ofSeconds(5), "the replayed event was sent", () -> !stream.frames().isEmpty());
        api.runs.append(id, new RunEvent.ToolCallStarted("call_1", "terminal", null, "ls", null));
        Eventually.await(Duration.ofSeconds(5), "the live event was sent",
                () -> stream.frames().stream().anyMatch(f -> Long.valueOf(2).equals(f.id())));
        api.runs.append(id, new RunEvent.ToolCallFinished("call_1", "terminal", 12, false, "x"),
                new RunEvent.Cancelled("stopped", null, Usage.ZERO));
        handler.get(5, TimeUnit.SECONDS);
        var lines = lines(stream);
        lines.removeIf(": keepalive"::equals); // sent only if a wait above took a second
        assertEquals(List.of("1 message.delta", "2 tool.started", "3 tool.completed", "4 run.cancelled", ": stream closed"),
                lines);
    }

    @Test
    void aClientThatLeavesNeverStopsTheRun() throws Exception {
        var id = api.newRun();
        api.runs.append(id, new RunEvent.TextDelta("a"), new RunEvent.TextDelta("b"));
        var ex = api.eventsRequest(id).eventStream(new RecordingEventStream().disconnectAfter(1)).call(api.eventsHandler());
        assertEquals(List.of("1 message.delta"), lines(ex.stream()));
        ex.disconnect();
        assertTrue(api.runs.stops().isEmpty());
        assertEquals(RunStatus.RUNNING, api.runs.record(id).orElseThrow().status());
    }

    @Test
    void anUnknownRunIs404() throws Exception {
        assertError(api.events("run_nope"), 404, "run_not_found", "Run not found: run_nope");
    }

    @Test
    void aMalformedCursorIs400() throws Exception {
        var id = finishedRun();
        for (var bad : List.of("abc", "-1", "1.5", "+2", "99999999999999999999")) {
            assertError(api.eventsRequest(id).requestHeader("Last-Event-ID", bad).call(api.eventsHandler()), 400,
                    "invalid_event_cursor", "Invalid event cursor: " + bad);
            assertError(api.eventsRequest(id).queryParam("after", bad).call(api.eventsHandler()), 400,
                    "invalid_event_cursor", "Invalid event cursor: " + bad);
        }
    }

    @Test
    void aCursorBeyondTheLastEventIs400() throws Exception {
        var id = finishedRun();
        var ex = api.eventsRequest(id).queryParam("after", "5").call(api.eventsHandler());
        assertError(ex, 400, "invalid_event_cursor", "Invalid event cursor: 5 is beyond the last event of this run (4)");
        assertNull(ex.stream());
    }

    @Test
    void aLiveRunsCursorMayWaitBrieflyForTheRecordToCatchUp() throws Exception {
        var id = api.newRun();
        api.runs.append(id, new RunEvent.TextDelta("a"));
        var waiting = new AtomicReference<Thread>();
        var caughtUp = inBackground(() -> {
            waiting.set(Thread.currentThread());
            return api.eventsRequest(id).requestHeader("Last-Event-ID", "2").call(api.eventsHandler());
        });
        awaitParked(waiting);
        api.runs.append(id, new RunEvent.TextDelta("b"));
        api.runs.append(id, new RunEvent.TextDelta("c"), new RunEvent.Cancelled("stopped", null, Usage.ZERO));
        assertEquals(List.of("3 message.delta", "4 run.cancelled", ": stream closed"),
                lines(caughtUp.get(5, TimeUnit.SECONDS).stream()));

        var live = api.newRun();
        var expired = inBackground(() -> {
            waiting.set(Thread.currentThread());
            return api.eventsRequest(live).queryParam("after", "1").call(api.eventsHandler());
        });
        awaitParked(waiting);
        assertFalse(expired.isDone(), "waits while the grace lasts");
        api.clock.advance(Duration.ofMillis(300));
        assertError(expired.get(5, TimeUnit.SECONDS), 400, "invalid_event_cursor", null);
    }

    /** Runs a handler call on its own thread, as the server would. */
    private static CompletableFuture<FakeExchange> inBackground(Callable<FakeExchange> call) {
        var f = new CompletableFuture<FakeExchange>();
        Thread.ofVirtual().start(() -> {
            try {
                f.complete(call.call());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /** Waits until the handler thread sleeps between looks at the record, that is, inside the grace. */
    private static void awaitParked(AtomicReference<Thread> thread) throws InterruptedException {
        Eventually.await(Duration.ofSeconds(5), "the handler waits for the record", () -> {
            var t = thread.get();
            return t != null && t.getState() == Thread.State.TIMED_WAITING;
        });
    }
}
