package dev.caduceus.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.ModelOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScriptedRunsTest {
    private static final RunRequest REQUEST = new RunRequest(null, List.of(Message.user("hi")), null, List.of(),
            "s", null, ModelOptions.DEFAULTS, 0, Map.of());

    private static List<JournalEntry> drain(RunSubscription sub) throws InterruptedException {
        var entries = new ArrayList<JournalEntry>();
        while (!sub.finished()) sub.next(Duration.ofSeconds(5)).ifPresent(entries::add);
        return entries;
    }

    @Test
    void playsTheScriptThenATerminalEventDerivedFromTheResult() throws Exception {
        var runs = new ScriptedRuns();
        var result = RunResult.completed("hello", new Usage(1, 2, 3), List.of());
        runs.script(ScriptedRuns.Script.of(result, new RunEvent.TextDelta("hel"), new RunEvent.TextDelta("lo")));
        var run = runs.start(REQUEST);
        var entries = drain(run.subscribe(0));
        assertEquals(List.of(1L, 2L, 3L), entries.stream().map(JournalEntry::seq).toList());
        assertEquals(new RunEvent.Completed("hello", result.stopReason(), null, new Usage(1, 2, 3)),
                entries.getLast().event());
        assertSame(result, run.await());
        assertEquals(List.of(REQUEST), runs.requests());
        assertEquals(2, drain(run.subscribe(1)).size());
    }

    @Test
    void hangingRunEndsCancelledWithThePartialText() throws Exception {
        var runs = new ScriptedRuns();
        runs.script(ScriptedRuns.Script.hanging(new RunEvent.TextDelta("part")));
        var run = runs.start(REQUEST);
        run.cancel("stop");
        var last = drain(run.subscribe(0)).getLast().event();
        assertEquals(new RunEvent.Cancelled("stop", "part", Usage.ZERO), last);
        assertEquals(RunStatus.CANCELLED, run.await().status());
        assertEquals(List.of(new ScriptedRuns.Cancellation(run.id(), "stop")), runs.cancellations());
    }

    @Test
    void scriptedRejectionAppliesToAdmissionAndStart() {
        var runs = new ScriptedRuns().rejectWith(new RunRejectedException(RunRejectedException.Reason.DRAINING, "d"));
        assertThrows(RunRejectedException.class, runs::checkAdmission);
        var e = assertThrows(RunRejectedException.class, () -> runs.start(REQUEST));
        assertEquals(RunRejectedException.Reason.DRAINING, e.reason());
        assertTrue(runs.requests().isEmpty());
    }

    @Test
    void fakeSessionsReturnStoredTranscripts() {
        var sessions = new FakeSessions().put("a", List.of(Message.user("x")));
        assertEquals(List.of(Message.user("x")), sessions.transcript("admin", "a"));
        assertTrue(sessions.transcript("admin", "b").isEmpty());
        assertEquals(List.of("a", "b"), sessions.reads());
        var ctx = FakePlatformContext.builder("p").sessions(sessions).build();
        assertInstanceOf(FakeSessions.class, ctx.sessions());
    }
}
