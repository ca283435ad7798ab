package dev.caduceus.plugin.jobs;

import static dev.caduceus.plugin.jobs.JobsApiTest.assertFlat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.testkit.HostClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Jobs are tenants' own (issue 21, tenancy), on the real host with real named keys: a named key sees
 * and changes only the jobs it created, another key's job answers exactly like an unknown one (404
 * {@code Job not found}) on every route, the admin key sees all and filters the list with
 * {@code ?owner=}, and a job fires as its owner.
 */
class JobsTenancyTest {
    /** Every route that names a job: method, path after the id, body. */
    static final List<String[]> JOB_ROUTES = List.of(
            new String[] {"GET", "", null},
            new String[] {"PATCH", "", "{\"name\":\"renamed\",\"schedule\":\"every 5m\"}"},
            new String[] {"POST", "/pause", null},
            new String[] {"POST", "/resume", null},
            new String[] {"POST", "/run", null},
            new String[] {"GET", "/runs", null},
            new String[] {"DELETE", "", null});

    JobsHost f;
    HostClient alice;
    HostClient bob;
    HostClient admin;

    @BeforeEach
    void open() throws Exception {
        f = JobsHost.start();
        alice = f.as("alice");
        bob = f.as("bob");
        admin = f.admin;
    }

    @AfterEach
    void close() {
        f.close();
    }

    static HostClient.Response call(HostClient caller, String[] route, String id) {
        return JobsHost.call(caller, route[0], "/api/jobs/" + id + route[1], route[2]);
    }

    String create(HostClient caller, String name) {
        return JobsHost.create(caller, "{\"name\":\"" + name + "\",\"schedule\":\"every 1h\",\"prompt\":\"p\"}")
                .path("id").asText();
    }

    /** The listed jobs' names, sorted (jobs created at one instant are listed in id order, which is random). */
    static List<String> names(JsonNode list) {
        var names = new ArrayList<String>();
        list.path("jobs").forEach(j -> names.add(j.path("name").asText()));
        names.sort(null);
        return names;
    }

    List<String> listed(HostClient caller, String query) {
        var answer = caller.get("/api/jobs" + (query.isEmpty() ? "" : "?" + query));
        assertEquals(200, answer.status(), answer.body());
        return names(answer.json());
    }

    @Test
    void aJobBelongsToTheKeyThatCreatedItAndShowsItsOwner() throws Exception {
        var job = JobsHost.create(alice, "{\"name\":\"a\",\"schedule\":\"every 1h\"}");
        assertEquals("alice", job.path("owner").asText());
        assertEquals("alice", f.job(job.path("id").asText()).path("owner").asText());
        assertEquals("admin", f.create("{\"name\":\"c\",\"schedule\":\"every 1h\"}").path("owner").asText());
    }

    @Test
    void aNamedKeyListsOnlyItsJobsAndTheAdminListsAllOrOneOwners() throws Exception {
        create(alice, "a1");
        create(bob, "b1");
        create(alice, "a2");
        create(admin, "c1");
        assertEquals(List.of("a1", "a2", "b1", "c1"), listed(admin, ""));
        assertEquals(List.of("a1", "a2"), listed(alice, ""));
        assertEquals(List.of("b1"), listed(bob, ""));
        assertEquals(List.of("a1", "a2"), listed(admin, "owner=alice"));
        assertEquals(List.of("c1"), listed(admin, "owner=admin"));
        assertEquals(List.of(), listed(admin, "owner=nobody"));
        assertEquals(List.of("a1", "a2", "b1", "c1"), listed(admin, "owner="));
        assertEquals(List.of("b1"), listed(bob, "owner=alice"), "a tenant cannot list another's jobs");
        assertEquals(List.of(), listed(f.as("carol"), ""));
    }

    @Test
    void listingKeepsIncludeDisabledPerOwner() throws Exception {
        var a = create(alice, "a1");
        create(bob, "b1");
        assertEquals(200, alice.post("/api/jobs/" + a + "/pause", null).status());
        assertEquals(List.of(), listed(alice, ""));
        assertEquals(List.of("a1"), listed(alice, "include_disabled=true"));
        assertEquals(List.of("b1"), listed(admin, ""));
        assertEquals(List.of("a1"), listed(admin, "owner=alice&include_disabled=true"));
    }

    @Test
    void anotherKeysJobIsNotFoundOnEveryRouteAndStaysUnchanged() throws Exception {
        var a = create(alice, "mine");
        var before = f.job(a);
        for (var route : JOB_ROUTES) {
            var answer = call(bob, route, a);
            assertFlat(answer, 404, "Job not found");
            var unknown = call(bob, route, "0123456789ab");
            assertEquals(unknown.json(), answer.json(), route[0] + " " + route[1] + ": like an unknown id");
        }
        assertEquals(before, f.job(a), "nothing bob sent changed alice's job");
        f.clock.advance(Duration.ofMinutes(1));
        f.pass();
        assertEquals(List.of(), f.runsOf(a), "bob's run-now did not fire alice's job");
    }

    @Test
    void theOwnerUsesEveryRouteOnItsJob() throws Exception {
        var a = create(alice, "mine");
        for (var route : JOB_ROUTES) {
            var answer = call(alice, route, a);
            assertEquals(200, answer.status(), route[0] + " " + route[1] + " " + answer.body());
        }
        assertEquals(404, admin.get("/api/jobs/" + a).status(), "deleted by its owner");
    }

    @Test
    void theAdminKeyUsesEveryRouteOnATenantsJob() throws Exception {
        var a = create(alice, "hers");
        var patched = admin.send("PATCH", "/api/jobs/" + a, "{\"name\":\"renamed\"}");
        assertEquals("alice", patched.json().path("job").path("owner").asText(), "an admin edit keeps the owner");
        for (var route : JOB_ROUTES) {
            var answer = call(admin, route, a);
            assertEquals(200, answer.status(), route[0] + " " + route[1] + " " + answer.body());
        }
        assertEquals(404, alice.get("/api/jobs/" + a).status(), "deleted by the admin key");
    }

    @Test
    void aTenantCannotReachTheAdminsJobs() throws Exception {
        var c = create(admin, "ops");
        for (var route : JOB_ROUTES) assertFlat(call(alice, route, c), 404, "Job not found");
        assertEquals(List.of("ops"), listed(admin, ""));
    }

    @Test
    void aTenantsJobFiresAsItsOwnerAndItsHistoryIsTheOwnersRuns() throws Exception {
        var a = JobsHost.create(alice, "{\"name\":\"hers\",\"schedule\":\"every 1m\",\"prompt\":\"report\"}").path("id").asText();
        var c = f.createId("{\"name\":\"ops\",\"schedule\":\"every 1m\"}");
        f.clock.advance(Duration.ofMinutes(1));
        var fired = f.awaitRuns(a, 1).getFirst().path("run_id").asText();
        var ops = f.awaitRuns(c, 1).getFirst().path("run_id").asText();
        assertEquals(List.of(fired), runIds(alice.get("/v1/runs?job_id=" + a)), "the job's run belongs to its owner");
        assertEquals(List.of(fired), runIds(admin.get("/v1/runs?owner=alice&job_id=" + a)));
        assertEquals(List.of(ops), runIds(admin.get("/v1/runs?owner=admin&job_id=" + c)));
        assertEquals(List.of(), runIds(alice.get("/v1/runs?job_id=" + c)), "the admin's job ran as the admin");
        f.awaitSettled(a, "ok");

        // A run of another key that merely carries this job id is not the job's history.
        try (var db = Database.open(f.home().resolve("caduceus.db"))) {
            var now = f.clock.millis();
            db.write(sql -> sql.update("INSERT INTO runs (run_id, status, created_at, updated_at, session_id, model, "
                    + "origin, last_seq, last_event, output, owner) VALUES (?, 'completed', ?, ?, 's', 'm', ?, 1, "
                    + "'completed', 'forged', 'bob')", "run_" + "f".repeat(32), now, now, "job:" + a));
        }

        for (var caller : List.of(alice, admin)) {
            var history = caller.get("/api/jobs/" + a + "/runs");
            assertEquals(200, history.status(), history.body());
            var runs = history.json().path("runs");
            assertEquals(1, runs.size(), runs.toString());
            assertEquals(fired, runs.get(0).path("run_id").asText());
            assertEquals("ok", runs.get(0).path("output").asText());
        }
        assertFlat(bob.get("/api/jobs/" + a + "/runs"), 404, "Job not found");
        assertEquals(fired, alice.get("/api/jobs/" + a).json().path("job").path("last_run_id").asText());
    }

    @Test
    void aManualFiringOfATenantsJobRunsAsTheOwnerEvenWhenTheAdminAsksForIt() throws Exception {
        var a = create(alice, "hers");
        assertEquals(200, admin.post("/api/jobs/" + a + "/run", null).status());
        var fired = f.awaitRuns(a, 1).getFirst().path("run_id").asText();
        assertEquals(List.of(fired), runIds(alice.get("/v1/runs?job_id=" + a)));
    }

    private static List<String> runIds(HostClient.Response page) {
        assertEquals(200, page.status(), page.body());
        var ids = new ArrayList<String>();
        page.json().path("data").forEach(r -> ids.add(r.path("run_id").asText()));
        return ids;
    }
}
