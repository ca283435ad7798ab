package dev.caduceus.plugin.jobs;

import static dev.caduceus.plugin.jobs.JobsApiTest.assertFlat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.http.Caller;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs are tenants' own (issue 21, tenancy): a named key sees and changes only the jobs it created,
 * another key's job answers exactly like an unknown one (404 {@code Job not found}) on every route,
 * the admin key sees all and filters the list with {@code ?owner=}, and a job fires as its owner.
 */
class JobsTenancyTest {
    static final Caller ALICE = Caller.tenant("alice");
    static final Caller BOB = Caller.tenant("bob");
    static final Caller ADMIN = Caller.ADMIN_CALLER;

    /** Every route that names a job: method, template, body. */
    static final List<String[]> JOB_ROUTES = List.of(
            new String[] {"GET", "/api/jobs/{job_id}", null},
            new String[] {"PATCH", "/api/jobs/{job_id}", "{\"name\":\"renamed\",\"schedule\":\"every 5m\"}"},
            new String[] {"POST", "/api/jobs/{job_id}/pause", null},
            new String[] {"POST", "/api/jobs/{job_id}/resume", null},
            new String[] {"POST", "/api/jobs/{job_id}/run", null},
            new String[] {"GET", "/api/jobs/{job_id}/runs", null},
            new String[] {"DELETE", "/api/jobs/{job_id}", null});

    @TempDir Path dir;
    JobsFixture f;

    @BeforeEach
    void open() {
        f = new JobsFixture(dir);
    }

    @AfterEach
    void close() {
        f.close();
    }

    String create(Caller caller, String name) throws Exception {
        return f.create(caller, "{\"name\":\"" + name + "\",\"schedule\":\"every 1h\",\"prompt\":\"p\"}")
                .path("id").asText();
    }

    /** The listed jobs' names, sorted (jobs created at one instant are listed in id order, which is random). */
    List<String> names(JsonNode list) {
        var names = new ArrayList<String>();
        list.path("jobs").forEach(j -> names.add(j.path("name").asText()));
        names.sort(null);
        return names;
    }

    List<String> listed(Caller caller, String... query) throws Exception {
        var ex = f.call(caller, "GET", "/api/jobs", null, null, query);
        assertEquals(200, ex.status(), ex.responseBody().toString());
        return names(ex.responseBody());
    }

    @Test
    void aJobBelongsToTheKeyThatCreatedItAndShowsItsOwner() throws Exception {
        var job = f.create(ALICE, "{\"name\":\"a\",\"schedule\":\"every 1h\"}");
        assertEquals("alice", job.path("owner").asText());
        assertEquals("alice", f.job(job.path("id").asText()).owner());
        assertEquals("admin", f.create("{\"name\":\"c\",\"schedule\":\"every 1h\"}").path("owner").asText());
    }

    @Test
    void aNamedKeyListsOnlyItsJobsAndTheAdminListsAllOrOneOwners() throws Exception {
        create(ALICE, "a1");
        create(BOB, "b1");
        create(ALICE, "a2");
        create(ADMIN, "c1");
        assertEquals(List.of("a1", "a2", "b1", "c1"), listed(ADMIN));
        assertEquals(List.of("a1", "a2"), listed(ALICE));
        assertEquals(List.of("b1"), listed(BOB));
        assertEquals(List.of("a1", "a2"), listed(ADMIN, "owner", "alice"));
        assertEquals(List.of("c1"), listed(ADMIN, "owner", "admin"));
        assertEquals(List.of(), listed(ADMIN, "owner", "nobody"));
        assertEquals(List.of("a1", "a2", "b1", "c1"), listed(ADMIN, "owner", ""));
        assertEquals(List.of("b1"), listed(BOB, "owner", "alice"), "a tenant cannot list another's jobs");
        assertEquals(List.of(), listed(Caller.tenant("carol")));
    }

    @Test
    void listingKeepsIncludeDisabledPerOwner() throws Exception {
        var a = create(ALICE, "a1");
        create(BOB, "b1");
        assertEquals(200, f.call(ALICE, "POST", "/api/jobs/{job_id}/pause", a, null).status());
        assertEquals(List.of(), listed(ALICE));
        assertEquals(List.of("a1"), listed(ALICE, "include_disabled", "true"));
        assertEquals(List.of("b1"), listed(ADMIN));
        assertEquals(List.of("a1"), listed(ADMIN, "owner", "alice", "include_disabled", "true"));
    }

    @Test
    void anotherKeysJobIsNotFoundOnEveryRouteAndStaysUnchanged() throws Exception {
        var a = create(ALICE, "mine");
        var before = f.job(a);
        for (var route : JOB_ROUTES) {
            var ex = f.call(BOB, route[0], route[1], a, route[2]);
            assertFlat(ex, 404, "Job not found");
            var unknown = f.call(BOB, route[0], route[1], "0123456789ab", route[2]);
            assertEquals(unknown.responseBody(), ex.responseBody(), route[0] + " " + route[1] + ": like an unknown id");
        }
        assertEquals(before, f.job(a), "nothing bob sent changed alice's job");
        f.clock.advance(Duration.ofMinutes(1));
        f.tick();
        assertEquals(0, f.runs.submissions().size(), "bob's run-now did not fire alice's job");
    }

    @Test
    void theOwnerUsesEveryRouteOnItsJob() throws Exception {
        var a = create(ALICE, "mine");
        for (var route : JOB_ROUTES) {
            var ex = f.call(ALICE, route[0], route[1], a, route[2]);
            assertEquals(200, ex.status(), route[0] + " " + route[1] + " " + ex.responseBody());
        }
        assertTrue(f.store.find(a).isEmpty(), "deleted by its owner");
    }

    @Test
    void theAdminKeyUsesEveryRouteOnATenantsJob() throws Exception {
        var a = create(ALICE, "hers");
        var patched = f.call(ADMIN, "PATCH", "/api/jobs/{job_id}", a, "{\"name\":\"renamed\"}");
        assertEquals("alice", patched.responseBody().path("job").path("owner").asText(), "an admin edit keeps the owner");
        for (var route : JOB_ROUTES) {
            var ex = f.call(ADMIN, route[0], route[1], a, route[2]);
            assertEquals(200, ex.status(), route[0] + " " + route[1] + " " + ex.responseBody());
        }
        assertTrue(f.store.find(a).isEmpty(), "deleted by the admin key");
    }

    @Test
    void aTenantCannotReachTheAdminsJobs() throws Exception {
        var c = create(ADMIN, "ops");
        for (var route : JOB_ROUTES) assertFlat(f.call(ALICE, route[0], route[1], c, route[2]), 404, "Job not found");
        assertEquals(List.of("ops"), listed(ADMIN));
    }

    @Test
    void aTenantsJobFiresAsItsOwnerAndItsHistoryIsTheOwnersRuns() throws Exception {
        var a = f.create(ALICE, "{\"name\":\"hers\",\"schedule\":\"every 1m\",\"prompt\":\"report\"}").path("id").asText();
        var c = f.create("{\"name\":\"ops\",\"schedule\":\"every 1m\"}").path("id").asText();
        f.clock.advance(Duration.ofMinutes(1));
        f.tick();
        assertEquals(2, f.runs.submissions().size());
        var fired = f.runs.submissions().stream()
                .filter(s -> a.equals(s.request().metadata().get("job_id"))).findFirst().orElseThrow();
        assertEquals("alice", fired.request().owner(), "the job's run belongs to its owner");
        assertEquals("report", fired.request().messages().getLast().text());
        assertEquals("alice", f.runs.record(fired.runId()).orElseThrow().owner());
        var ops = f.runs.submissions().stream()
                .filter(s -> c.equals(s.request().metadata().get("job_id"))).findFirst().orElseThrow();
        assertEquals(Caller.ADMIN, ops.request().owner());
        f.runs.append(fired.runId(), new RunEvent.Completed("done", StopReason.STOP, null, new Usage(1, 2, 3)));
        f.tick();

        // A run of another key that merely carries this job id is not the job's history.
        var now = f.clock.instant();
        f.runs.put(new RunRecord("run_" + "f".repeat(32), RunStatus.COMPLETED, now, now, "s", "hermes-agent", a, 1,
                "completed", "forged", null, null, null, null, "bob"));

        for (var caller : List.of(ALICE, ADMIN)) {
            var history = f.call(caller, "GET", "/api/jobs/{job_id}/runs", a, null);
            assertEquals(200, history.status(), history.responseBody().toString());
            var runs = history.responseBody().path("runs");
            assertEquals(1, runs.size(), caller.name() + ": " + runs);
            assertEquals(fired.runId(), runs.get(0).path("run_id").asText());
            assertEquals("done", runs.get(0).path("output").asText());
            assertEquals("alice", f.runs.queries().getLast().owner());
            assertEquals(a, f.runs.queries().getLast().jobId());
        }
        assertFlat(f.call(BOB, "GET", "/api/jobs/{job_id}/runs", a, null), 404, "Job not found");
        assertEquals(fired.runId(), f.call(ALICE, "GET", "/api/jobs/{job_id}", a, null)
                .responseBody().path("job").path("last_run_id").asText());
    }

    @Test
    void aManualFiringOfATenantsJobRunsAsTheOwnerEvenWhenTheAdminAsksForIt() throws Exception {
        var a = create(ALICE, "hers");
        assertEquals(200, f.call(ADMIN, "POST", "/api/jobs/{job_id}/run", a, null).status());
        f.tick();
        assertEquals(1, f.runs.submissions().size());
        assertEquals("alice", f.runs.submissions().getFirst().request().owner());
    }
}
