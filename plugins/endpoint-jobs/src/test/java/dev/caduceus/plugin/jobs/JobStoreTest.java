package dev.caduceus.plugin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.store.PluginDatabase.Dialect;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link JobStore} on its real tables, on SQLite and on PostgreSQL: every column round-trips, the list
 * order, tenancy filters, and the scheduler's compare-and-set updates (claim, start, unclaim, advance,
 * missed, settle), which must hold on both engines alike.
 */
@ParameterizedClass
@EnumSource(Dialect.class)
class JobStoreTest {
    static final Instant T0 = Instant.parse("2026-01-15T09:00:00.123Z");

    @TempDir Path dir;
    @Parameter Dialect dialect;
    TestDatabase db;
    JobStore store;

    @BeforeEach
    void open() {
        db = TestDatabase.open(dir, "endpoint-jobs", dialect);
        store = new JobStore(db, new ObjectMapper());
    }

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    void everyColumnRoundTrips() {
        var recurring = StoredJobs.every("aaaaaaaaaaaa", "bob", 15, T0.plusMillis(1), T0);
        var d = recurring.draft();
        d.repeatTimes = 3;
        d.repeatCompleted = 2;
        d.pausedAt = T0.plusSeconds(5);
        d.pausedReason = "why";
        d.lastRunAt = T0.plusSeconds(6);
        d.lastStatus = "error";
        d.lastError = "it broke";
        d.lastRunId = "run_1";
        d.currentRunId = Job.PENDING;
        d.nextTrigger = JobScheduler.MANUAL;
        var full = d.build();
        store.insert(full);
        assertEquals(Optional.of(full), store.find(full.id()));
        var once = StoredJobs.once("bbbbbbbbbbbb", "admin", T0);
        store.insert(once);
        assertEquals(Optional.of(once), store.find(once.id()), "nulls stay null");
        assertEquals(Optional.empty(), store.find("cccccccccccc"));
    }

    @Test
    void listIsByNextRunUnscheduledLastAndFiltersByOwnerAndEnabled() {
        store.insert(StoredJobs.every("000000000003", "bob", 5, null, T0));
        store.insert(StoredJobs.every("000000000002", "alice", 5, T0.plusSeconds(20), T0));
        store.insert(StoredJobs.every("000000000001", "bob", 5, T0.plusSeconds(10), T0.plusSeconds(1)));
        store.insert(StoredJobs.every("000000000004", "bob", 5, T0.plusSeconds(10), T0));
        store.modify("000000000002", j -> true, j -> {
            var d = j.draft();
            d.enabled = false;
            return d.build();
        });
        assertEquals(List.of("000000000004", "000000000001", "000000000002", "000000000003"), ids(store.list(true, null)));
        assertEquals(List.of("000000000004", "000000000001", "000000000003"), ids(store.list(false, null)));
        assertEquals(List.of("000000000004", "000000000001", "000000000003"), ids(store.list(true, "bob")));
        assertEquals(List.of(), ids(store.list(false, "alice")));
    }

    @Test
    void modifyAndDeleteOnlyWhatIsVisible() {
        var job = StoredJobs.once("aaaaaaaaaaaa", "bob", T0);
        store.insert(job);
        assertEquals(Optional.empty(), store.modify(job.id(), j -> j.owner().equals("alice"), j -> j));
        var renamed = store.modify(job.id(), j -> j.owner().equals("bob"), j -> {
            var d = j.draft();
            d.name = "renamed";
            return d.build();
        }).orElseThrow();
        assertEquals("renamed", store.find(job.id()).orElseThrow().name());
        assertEquals("bob", renamed.owner());
        assertEquals(Optional.empty(), store.delete(job.id(), j -> false));
        assertTrue(store.find(job.id()).isPresent());
        assertEquals(Optional.of(renamed), store.delete(job.id(), j -> true));
        assertEquals(Optional.empty(), store.find(job.id()));
    }

    @Test
    void dueAndEarliestDueSeeOnlyEnabledScheduledJobs() {
        store.insert(StoredJobs.once("000000000001", "bob", T0.plusSeconds(1)));
        store.insert(StoredJobs.once("000000000002", "bob", T0));
        store.insert(StoredJobs.once("000000000003", "bob", T0.plusSeconds(60)));
        store.insert(StoredJobs.every("000000000004", "bob", 5, null, T0));
        assertEquals(Optional.of(T0), store.earliestDue());
        assertEquals(List.of("000000000002", "000000000001"), ids(store.due(T0.plusSeconds(1))));
        assertEquals(List.of(), ids(store.due(T0.minusMillis(1))));
    }

    @Test
    void aFiringIsClaimedOnceStartedSettledAndItsHistoryKept() {
        var job = StoredJobs.every("aaaaaaaaaaaa", "bob", 5, T0, T0.minusSeconds(60));
        store.insert(job);
        var now = T0.plusMillis(250);
        var next = T0.plus(Duration.ofMinutes(5));
        assertTrue(store.claim(job.id(), T0, next, now));
        assertFalse(store.claim(job.id(), T0, next, now), "the same firing twice");
        assertFalse(store.claim(job.id(), next, next.plusSeconds(300), now), "nor the next while one is live");
        var claimed = store.find(job.id()).orElseThrow();
        assertEquals(Job.PENDING, claimed.currentRunId());
        assertEquals(Job.RUNNING, claimed.state());
        assertEquals(next, claimed.nextRunAt());
        assertEquals(List.of(job.id()), ids(store.live()));

        assertTrue(store.started(job.id(), "run_a", JobScheduler.SCHEDULE, T0, now));
        assertFalse(store.started(job.id(), "run_b", JobScheduler.SCHEDULE, T0, now), "started once");
        assertEquals(java.util.Map.of("run_a", new JobStore.Firing("schedule", T0, now)),
                store.firings(job.id(), List.of("run_a", "run_b")));

        assertEquals(Optional.empty(), store.settle(job.id(), "run_other", j -> j));
        var settled = store.settle(job.id(), "run_a", j -> {
            var d = j.draft();
            d.repeatCompleted = j.repeatCompleted() + 1;
            d.currentRunId = null;
            d.lastRunId = "run_a";
            d.lastStatus = "ok";
            d.lastRunAt = now;
            d.state = Job.SCHEDULED;
            d.updatedAt = now;
            return d.build();
        }).orElseThrow();
        assertEquals(settled, store.find(job.id()).orElseThrow());
        assertEquals(1, settled.repeatCompleted());
        assertEquals(List.of(), store.live());
        assertEquals(Optional.empty(), store.settle(job.id(), "run_a", j -> j), "settled once");
    }

    @Test
    void unclaimAdvanceAndMissedAreCompareAndSet() {
        var job = StoredJobs.every("aaaaaaaaaaaa", "bob", 5, T0, T0.minusSeconds(60));
        store.insert(job);
        assertTrue(store.claim(job.id(), T0, T0.plusSeconds(300), T0));
        store.unclaim(job.id(), T0, JobScheduler.MANUAL, T0.plusSeconds(1));
        var back = store.find(job.id()).orElseThrow();
        assertEquals(T0, back.nextRunAt());
        assertNull(back.currentRunId());
        assertEquals(JobScheduler.MANUAL, back.nextTrigger());
        assertEquals(Job.SCHEDULED, back.state());

        assertFalse(store.advance(job.id(), T0.minusSeconds(1), T0.plusSeconds(300), null, T0), "not due then");
        assertTrue(store.advance(job.id(), T0, T0.plusSeconds(300), null, T0));
        assertEquals(Job.SCHEDULED, store.find(job.id()).orElseThrow().state(), "a null state keeps the state");
        assertTrue(store.advance(job.id(), T0.plusSeconds(300), null, Job.ERROR, T0));
        var stopped = store.find(job.id()).orElseThrow();
        assertNull(stopped.nextRunAt());
        assertEquals(Job.ERROR, stopped.state());

        var once = StoredJobs.once("bbbbbbbbbbbb", "bob", T0);
        store.insert(once);
        assertTrue(store.missed(once.id(), T0, T0.plusSeconds(600)));
        assertFalse(store.missed(once.id(), T0, T0.plusSeconds(600)));
        var missed = store.find(once.id()).orElseThrow();
        assertEquals(Job.COMPLETED, missed.state());
        assertFalse(missed.enabled());
        assertEquals("Missed scheduled time", missed.lastError());
    }

    private static List<String> ids(List<Job> jobs) {
        return jobs.stream().map(Job::id).toList();
    }
}
