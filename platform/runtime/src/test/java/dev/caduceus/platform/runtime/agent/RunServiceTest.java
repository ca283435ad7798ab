package dev.caduceus.platform.runtime.agent;

import dev.caduceus.platform.runtime.journal.InMemoryEventLog;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.platform.host.store.PlatformMigrations;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunRejectedException.Reason;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.spi.model.ModelEvent;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunServiceTest {
    @TempDir
    Path dir;

    @Test
    void capRejectsAndTheSlotIsReleasedWhenTheRunEnds() throws Exception {
        var entered = new CountDownLatch(1);
        var model = new ScriptedModel().hang(entered).answer("second");
        var harness = new Harness(model, 90, 1, null);
        var first = harness.runs.start(Harness.request("one"));
        assertTrue(entered.await(5, TimeUnit.SECONDS));
        assertEquals(1, harness.runs.activeRuns());
        var e = assertThrows(RunRejectedException.class, () -> harness.runs.start(Harness.request("two")));
        assertEquals(Reason.AT_CAPACITY, e.reason());
        assertEquals("Too many concurrent runs (max 1)", e.getMessage());
        assertThrows(RunRejectedException.class, harness.runs::checkAdmission);
        first.cancel("stop");
        first.await();
        assertEquals(0, harness.runs.activeRuns());
        harness.runs.checkAdmission();
        assertEquals("second", harness.runs.start(Harness.request("two")).await().output());
    }

    @Test
    void callRunsOnTheCallingThreadAndCountsAgainstTheCap() throws Exception {
        var names = new ArrayList<String>();
        var threads = new ArrayList<Thread>();
        var model = new ScriptedModel().then((r, sink, cancel) -> {
            threads.add(Thread.currentThread());
            names.add(Thread.currentThread().getName());
            sink.accept(new ModelEvent.TextDelta("here"));
            sink.accept(new ModelEvent.Finish(FinishReason.STOP));
        });
        var harness = new Harness(model, 90, 1, null);
        var caller = Thread.currentThread();
        var before = caller.getName();
        var handles = new ArrayList<RunHandle>();
        var result = harness.runs.call(Harness.request("one"), h -> {
            handles.add(h);
            // the cap counts this run while it executes on the caller's thread
            assertThrows(RunRejectedException.class, harness.runs::checkAdmission);
        });
        assertEquals("here", result.output());
        assertEquals(List.of(caller), threads, "the model was called on the caller's thread");
        assertEquals(List.of(handles.getFirst().id()), names, "named after the run meanwhile");
        assertEquals(before, caller.getName());
        assertEquals(0, harness.runs.activeRuns());
        assertInstanceOf(RunEvent.Completed.class, Harness.events(harness.runs.find(handles.getFirst().id()).orElseThrow()).getLast());
    }

    @Test
    void callHandsOverTheHandleFirstSoAnotherThreadCanCancel() throws Exception {
        var entered = new CountDownLatch(1);
        var harness = new Harness(new ScriptedModel().hang(entered));
        var result = harness.runs.call(Harness.request("x"), h -> Thread.ofVirtual().start(() -> {
            try {
                if (entered.await(5, TimeUnit.SECONDS)) h.cancel("client_disconnected");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        assertEquals(dev.caduceus.spi.agent.RunStatus.CANCELLED, result.status());
        assertEquals(0, harness.runs.activeRuns());
    }

    @Test
    void callAtTheCapIsRejectedWithoutRunning() throws Exception {
        var entered = new CountDownLatch(1);
        var model = new ScriptedModel().hang(entered);
        var harness = new Harness(model, 90, 1, null);
        var first = harness.runs.start(Harness.request("one"));
        assertTrue(entered.await(5, TimeUnit.SECONDS));
        var e = assertThrows(RunRejectedException.class, () -> harness.runs.call(Harness.request("two"), h -> {
            throw new AssertionError("a rejected run has no handle");
        }));
        assertEquals(Reason.AT_CAPACITY, e.reason());
        first.cancel("stop");
        first.await();
        assertEquals(1, model.requests.size());
    }

    @Test
    void drainingRejectsNewRuns() {
        var harness = new Harness(new ScriptedModel());
        harness.runs.beginDrain();
        var e = assertThrows(RunRejectedException.class, () -> harness.runs.start(Harness.request("x")));
        assertEquals(Reason.DRAINING, e.reason());
        assertEquals("Gateway is draining existing work; retry shortly.", e.getMessage());
    }

    @Test
    void drainCancelsRunsThatOutliveTheTimeout() throws Exception {
        var entered = new CountDownLatch(1);
        var harness = new Harness(new ScriptedModel().hang(entered));
        var run = harness.runs.start(Harness.request("x"));
        assertTrue(entered.await(5, TimeUnit.SECONDS));
        harness.runs.drain(Duration.ofMillis(50));
        assertEquals(0, harness.runs.activeRuns());
        assertEquals("shutdown", ((RunEvent.Cancelled) Harness.events(run).getLast()).reason());
    }

    @Test
    void noModelIsRejectedWithTheContractMessage() {
        var harness = new Harness(null);
        var e = assertThrows(RunRejectedException.class, harness.runs::checkAdmission);
        assertEquals(Reason.MODEL_NOT_CONFIGURED, e.reason());
        assertEquals("No model provider is configured. Set model.base_url, model.api_key and model.name in "
                + "~/.caduceus/config.yaml (or export OPENAI_BASE_URL, OPENAI_API_KEY and CADUCEUS_MODEL) and restart "
                + "Caduceus.", e.getMessage());
    }

    @Test
    void subscribeAfterReplaysThenTails() throws Exception {
        var entered = new CountDownLatch(1);
        var model = new ScriptedModel().hang(entered);
        var harness = new Harness(model);
        var run = harness.runs.start(Harness.request("x"));
        assertTrue(run.id().matches("run_[0-9a-f]{32}"));
        assertTrue(entered.await(5, TimeUnit.SECONDS));
        var early = run.subscribe(0);
        assertEquals(1, early.next(Duration.ofSeconds(1)).orElseThrow().seq()); // Started
        var late = run.subscribe(1);
        var second = late.next(Duration.ofSeconds(1)).orElseThrow();
        assertEquals(2, second.seq());
        assertEquals(new RunEvent.TextDelta("partial"), second.event());
        assertTrue(late.next(Duration.ofMillis(50)).isEmpty()); // nothing more yet: blocks, then times out
        var tail = new ArrayList<JournalEntry>();
        var reader = Thread.ofVirtual().start(() -> {
            try {
                while (!late.finished()) late.next(Duration.ofSeconds(5)).ifPresent(tail::add);
            } catch (InterruptedException ignored) {
            }
        });
        run.cancel("bye");
        reader.join(5000);
        assertEquals(3, tail.getLast().seq());
        assertTrue(tail.getLast().event().isTerminal());
        assertTrue(late.next(Duration.ofSeconds(1)).isEmpty());
        // the early subscriber sees the same entries
        assertEquals(2, early.next(Duration.ofSeconds(1)).orElseThrow().seq());
        assertEquals(3, early.next(Duration.ofSeconds(1)).orElseThrow().seq());
        assertTrue(early.finished());
        assertEquals(run.id(), harness.runs.find(run.id()).orElseThrow().id());
    }

    @Test
    void aFinishedChatRunStaysFindableForAMinuteWithoutItsRequestAndAReaderStillDrainsItAfterwards() throws Exception {
        var clock = new SteppedClock(java.time.Instant.parse("2026-12-02T00:00:00Z"));
        var harness = new Harness(new ScriptedModel().answer("done"), clock);
        var run = harness.runs.start(Harness.request("a long conversation ".repeat(10_000)));
        var reader = run.subscribe(0); // subscribed while the run was live
        assertEquals("done", run.await().output());
        var found = harness.runs.find(run.id()).orElseThrow();
        // what is kept holds the result and the events, not the request and its input
        assertInstanceOf(FinishedRun.class, found);
        assertEquals("done", found.await().output());
        assertInstanceOf(RunEvent.Completed.class, Harness.events(found).getLast());
        clock.advance(Duration.ofSeconds(61));
        assertTrue(harness.runs.find(run.id()).isEmpty(), "still findable after a minute");
        var seen = new ArrayList<JournalEntry>();
        while (!reader.finished()) reader.next(Duration.ofSeconds(5)).ifPresent(seen::add);
        assertEquals(1, seen.getFirst().seq());
        assertInstanceOf(RunEvent.Completed.class, seen.getLast().event(), "the early reader read to the end");
    }

    /** A clock that moves only when told. */
    static final class SteppedClock extends java.time.Clock {
        private volatile java.time.Instant now;

        SteppedClock(java.time.Instant start) {
            now = start;
        }

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public java.time.Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public java.time.Instant instant() {
            return now;
        }
    }

    @Test
    void aSubscriberOfARunWithNoEventsYetWaitsInsteadOfEnding() throws Exception {
        var release = new CountDownLatch(1);
        var runs = new RunService(new dev.caduceus.spi.agent.AgentRuntime() {
            @Override
            public String id() {
                return "slow-start";
            }

            @Override
            public dev.caduceus.spi.agent.RunResult execute(dev.caduceus.spi.agent.RunRequest r,
                                                            dev.caduceus.spi.agent.RunContext c) throws InterruptedException {
                release.await();
                c.emit(new RunEvent.TextDelta("hi"));
                return dev.caduceus.spi.agent.RunResult.completed("hi", dev.caduceus.spi.message.Usage.ZERO, java.util.List.of());
            }
        }, new InMemoryEventLog(), null, null, 0, true, Clock.systemUTC());
        var run = runs.start(Harness.request("x"));
        try (var sub = run.subscribe(0)) {
            assertTrue(sub.next(Duration.ofMillis(200)).isEmpty());
            assertTrue(!sub.finished(), "no event yet is not the end");
            release.countDown();
            assertEquals(1, sub.next(Duration.ofSeconds(5)).orElseThrow().seq());
            assertTrue(sub.next(Duration.ofSeconds(5)).orElseThrow().event().isTerminal());
        }
    }

    @Test
    void runtimeExceptionBecomesInternalError() throws Exception {
        var runs = new RunService(new dev.caduceus.spi.agent.AgentRuntime() {
            @Override
            public String id() {
                return "broken";
            }

            @Override
            public dev.caduceus.spi.agent.RunResult execute(dev.caduceus.spi.agent.RunRequest r,
                                                            dev.caduceus.spi.agent.RunContext c) {
                throw new IllegalStateException("bug");
            }
        }, new InMemoryEventLog(), null, null, 0, true, Clock.systemUTC());
        var run = runs.start(Harness.request("x"));
        assertEquals("internal_error", run.await().errorCode());
        var failed = (RunEvent.Failed) Harness.events(run).getLast();
        assertEquals("internal_error", failed.code());
    }

    @Test
    void sessionsGetTheTurnInputAndTheTurnMessages() throws Exception {
        try (var db = Database.open(dir.resolve("c.db"))) {
            Migrations.apply(db, Migrations.PLATFORM, PlatformMigrations.scripts());
            var sessions = new SessionStore(db, Harness.JSON, Clock.systemUTC());
            var add = LocalAgentRuntimeTest.ADD;
            var model = new ScriptedModel().toolCalls(ScriptedModel.call("c1", "add", LocalAgentRuntimeTest.args(1, 2)))
                    .answer("3").answer("again");
            var harness = new Harness(model, 90, 0, sessions, add);
            harness.runs.start(Harness.request("add 1 2", "s1")).await();
            harness.runs.start(Harness.request("more", "s1")).await();
            var transcript = sessions.transcript("admin", "s1");
            assertEquals(6, transcript.size());
            assertEquals("add 1 2", transcript.get(0).text());
            assertEquals("add", transcript.get(1).toolCalls().getFirst().name());
            assertEquals(3, transcript.get(1).toolCalls().getFirst().arguments().path("b").asInt() + 1);
            assertEquals("tool", transcript.get(2).role());
            assertEquals("c1", transcript.get(2).toolCallId());
            assertEquals("3", transcript.get(3).text());
            assertEquals("more", transcript.get(4).text());
            assertEquals("again", transcript.get(5).text());
            assertTrue(transcript.stream().noneMatch(m -> m.role().equals("system")));
            assertTrue(sessions.transcript("admin", "unknown").isEmpty());
        }
    }

    @Test
    void sessionsUnusedForTheRetentionPeriodArePruned() throws Exception {
        try (var db = Database.open(dir.resolve("p.db"))) {
            Migrations.apply(db, Migrations.PLATFORM, PlatformMigrations.scripts());
            var start = java.time.Instant.parse("2026-01-01T00:00:00Z");
            var old = new SessionStore(db, Harness.JSON, Clock.fixed(start, java.time.ZoneOffset.UTC));
            old.append("old", java.util.List.of(dev.caduceus.spi.message.Message.user("hi")));
            var later = Clock.fixed(start.plus(java.time.Duration.ofDays(31)), java.time.ZoneOffset.UTC);
            var current = new SessionStore(db, Harness.JSON, later);
            current.append("recent", java.util.List.of(dev.caduceus.spi.message.Message.user("hello")));
            assertEquals(1, current.prune(java.time.Duration.ofDays(30)));
            assertTrue(current.transcript("admin", "old").isEmpty());
            assertEquals(1, current.transcript("admin", "recent").size());
        }
    }
}
