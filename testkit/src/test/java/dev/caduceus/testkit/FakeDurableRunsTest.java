package dev.caduceus.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.ModelOptions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FakeDurableRunsTest {
    private static final Instant T0 = Instant.parse("2026-01-15T09:00:00Z");
    private static final RunRequest REQUEST = new RunRequest(null, List.of(Message.user("hi")), null, List.of(),
            null, null, ModelOptions.DEFAULTS, 0, Map.of("source", "runs"));

    private final FakeDurableRuns runs = new FakeDurableRuns(Clock.fixed(T0, ZoneOffset.UTC));

    @Test
    void aRepeatedKeyReplaysWithTheSameFingerprintAndConflictsWithAnother() throws Exception {
        var first = runs.start(REQUEST, RunOptions.journaled("k", "fp1"));
        assertFalse(first.replayed());
        runs.append(first.handle().id(), new RunEvent.TextDelta("x"));
        var again = runs.start(REQUEST, RunOptions.journaled("k", "fp1"));
        assertTrue(again.replayed());
        assertEquals(first.handle().id(), again.handle().id());
        assertEquals(RunStatus.RUNNING, again.status());
        var conflict = assertThrows(RunRejectedException.class, () -> runs.start(REQUEST, RunOptions.journaled("k", "fp2")));
        assertEquals(RunRejectedException.Reason.IDEMPOTENCY_CONFLICT, conflict.reason());
    }

    @Test
    void admissionIsCheckedAfterTheKeyLookup() throws Exception {
        var first = runs.start(REQUEST, RunOptions.journaled("k", "fp"));
        runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.AT_CAPACITY, "full"));
        assertTrue(runs.start(REQUEST, RunOptions.journaled("k", "fp")).replayed());
        assertThrows(RunRejectedException.class, () -> runs.start(REQUEST, RunOptions.journaled()));
        assertEquals(first.handle().id(), runs.submissions().get(1).runId());
    }

    @Test
    void appendMovesTheRecordLikeTheJournal() throws Exception {
        var id = runs.start(REQUEST, RunOptions.journaled()).handle().id();
        assertEquals(RunStatus.QUEUED, runs.record(id).orElseThrow().status());
        runs.append(id, new RunEvent.ApprovalRequested("a1", "rm -rf x", "Recursive delete", 300));
        assertEquals(RunStatus.WAITING_FOR_APPROVAL, runs.record(id).orElseThrow().status());
        assertEquals("approval_requested", runs.record(id).orElseThrow().lastEvent());
        runs.append(id, new RunEvent.Completed("done", StopReason.STOP, null, new Usage(1, 2, 3)));
        var record = runs.record(id).orElseThrow();
        assertEquals(RunStatus.COMPLETED, record.status());
        assertEquals(2, record.lastSeq());
        assertEquals("completed", record.lastEvent());
        assertEquals("done", record.output());
        assertFalse(runs.stop(id));
    }

    @Test
    void listsNewestFirstWithAKeysetCursor() {
        for (int i = 0; i < 5; i++)
            runs.put(record("run_" + i, T0.plusSeconds(i), i % 2 == 0 ? RunStatus.COMPLETED : RunStatus.RUNNING));
        var page = runs.list(new RunQuery(Set.of(), null, null, 2, null, null));
        assertEquals(List.of("run_4", "run_3"), page.runs().stream().map(RunRecord::runId).toList());
        assertTrue(page.hasMore());
        var next = runs.list(new RunQuery(Set.of(), null, null, 2, T0.plusSeconds(3), "run_3"));
        assertEquals(List.of("run_2", "run_1"), next.runs().stream().map(RunRecord::runId).toList());
        var completed = runs.list(new RunQuery(Set.of(RunStatus.COMPLETED), null, null, 10, null, null));
        assertEquals(List.of("run_4", "run_2", "run_0"), completed.runs().stream().map(RunRecord::runId).toList());
        assertFalse(completed.hasMore());
    }

    @Test
    void aSubscriptionAfterTheTerminalEntryIsFinishedAtOnce() throws Exception {
        var id = runs.start(REQUEST, RunOptions.journaled()).handle().id();
        runs.append(id, new RunEvent.TextDelta("a"), new RunEvent.Cancelled("stopped", null, Usage.ZERO));
        var handle = runs.find(id).orElseThrow();
        try (var all = handle.subscribe(0)) {
            assertEquals(1L, all.next(Duration.ofSeconds(1)).map(JournalEntry::seq).orElseThrow());
            assertEquals(2L, all.next(Duration.ofSeconds(1)).map(JournalEntry::seq).orElseThrow());
            assertTrue(all.finished());
        }
        try (var none = handle.subscribe(2)) {
            assertTrue(none.finished());
            assertTrue(none.next(Duration.ofSeconds(5)).isEmpty());
        }
    }

    private static RunRecord record(String id, Instant created, RunStatus status) {
        return new RunRecord(id, status, created, created, "s", "hermes-agent", null, 0, null, null, null, null, null,
                null, "admin");
    }
}
