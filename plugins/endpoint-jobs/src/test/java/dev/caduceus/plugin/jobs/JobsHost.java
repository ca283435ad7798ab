package dev.caduceus.plugin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.ManualClock;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * The jobs family on the real host ({@link TestHost}: this plugin's jar, provider-openai for the model
 * a firing calls, endpoint-runs to read a fired run as the host journaled it) with a
 * {@link ScriptedUpstream} as the model (unscripted calls answer {@code ok}) and a {@link ManualClock}
 * as the platform's clock, starting at {@link #T0}. The scheduler ticks every 20 ms of real time and
 * reads the manual clock, so a job comes due only when a test moves the clock; {@link #pass()} waits
 * until the scheduler has looked at everything due (to assert that something did <em>not</em> fire).
 * One per test; not thread-safe.
 */
final class JobsHost implements AutoCloseable {
    static final Instant T0 = Instant.parse("2026-01-15T09:00:00Z");
    static final Duration DEADLINE = Duration.ofSeconds(20);
    static final String CONFIG = """
            plugins:
              endpoint-jobs:
                tick: 20ms
                default_tz: UTC
            """;

    final ManualClock clock;
    final ScriptedUpstream upstream;
    final TestHost host;
    final HostClient admin;
    private final Map<String, HostClient> keys = new HashMap<>();
    private final boolean ownsUpstream;

    private JobsHost(ManualClock clock, ScriptedUpstream upstream, boolean ownsUpstream,
                     UnaryOperator<TestHost.Builder> more) {
        this.clock = clock;
        this.upstream = upstream;
        this.ownsUpstream = ownsUpstream;
        var builder = TestHost.builder().plugins("endpoint-jobs", "endpoint-runs", "provider-openai")
                .configYaml(CONFIG)
                .clock(clock)
                .env("CADUCEUS__SERVER__DRAIN_TIMEOUT_SECONDS", "1"); // runs left waiting end at close
        if (upstream != null) builder.model(upstream);
        host = more.apply(builder).start();
        admin = host.http();
    }

    /** A host at {@link #T0} with its own upstream. */
    static JobsHost start() {
        return start(b -> b);
    }

    /** {@link #start()} with more builder settings. */
    static JobsHost start(UnaryOperator<TestHost.Builder> more) {
        var upstream = ScriptedUpstream.start();
        upstream.setDefault(Turn.text("ok"));
        return new JobsHost(new ManualClock(T0), upstream, true, more);
    }

    /** A host with no model configured (no provider base URL): every firing is rejected by the host. */
    static JobsHost withoutModel() {
        return new JobsHost(new ManualClock(T0), null, false, b -> b);
    }

    /**
     * Another process on this host's {@code $CADUCEUS_HOME} and upstream, its clock at {@code now}:
     * after {@code host.close()} a restart (start this host on a home of the test's, which closing
     * leaves); while this one runs, a second server on the same state (as when this one was killed and
     * the next started). The caller closes it; this host's {@link #close()} closes the shared upstream.
     */
    JobsHost next(Instant now) {
        return new JobsHost(new ManualClock(now), upstream, false, b -> b.home(host.home()));
    }

    /**
     * Another node: a host with {@code more} (the same PostgreSQL database), this host's upstream and a
     * manual clock of its own at this host's time. The caller closes it.
     */
    JobsHost node(UnaryOperator<TestHost.Builder> more) {
        return new JobsHost(new ManualClock(clock.instant()), upstream, false, more);
    }

    // ---- calls ------------------------------------------------------------------------------------

    /** A client presenting the named key {@code name}, added to the host's key table on first use. */
    HostClient as(String name) throws Exception {
        if (name.equals("admin")) return admin;
        var client = keys.get(name);
        if (client != null) return client;
        client = admin.withKey(host.addKey(name)); // the host's database: on PostgreSQL, every node's keys
        keys.put(name, client);
        return client;
    }

    HostClient.Response call(String method, String path, String body) {
        return call(admin, method, path, body);
    }

    static HostClient.Response call(HostClient client, String method, String path, String body) {
        return client.send(method, path, body);
    }

    /** Creates a job as the admin key and returns its object. */
    JsonNode create(String body) {
        return create(admin, body);
    }

    /** Creates a job as {@code client}'s key and returns its object. */
    static JsonNode create(HostClient client, String body) {
        var answer = client.post("/api/jobs", body);
        assertEquals(201, answer.status(), answer.body());
        return answer.json().path("job");
    }

    /** Creates a job and returns its id. */
    String createId(String body) {
        return create(body).path("id").asText();
    }

    /** The job as {@code GET /api/jobs/{id}} shows it to the admin key. */
    JsonNode job(String id) {
        var answer = admin.get("/api/jobs/" + id);
        assertEquals(200, answer.status(), answer.body());
        return answer.json().path("job");
    }

    /** {@code GET /api/jobs/{id}/runs} as the admin key. */
    JsonNode history(String id) {
        var answer = admin.get("/api/jobs/" + id + "/runs");
        assertEquals(200, answer.status(), answer.body());
        return answer.json();
    }

    /** The host's durable runs of job {@code id} ({@code GET /v1/runs?job_id=}), newest first, as the admin key. */
    List<JsonNode> runsOf(String id) {
        var answer = admin.get("/v1/runs?job_id=" + id + "&limit=100");
        assertEquals(200, answer.status(), answer.body());
        var runs = new ArrayList<JsonNode>();
        answer.json().path("data").forEach(runs::add);
        return runs;
    }

    /** {@code GET /v1/runs/{id}}: the run as the host journaled it. */
    JsonNode run(String runId) {
        var answer = admin.get("/v1/runs/" + runId);
        assertEquals(200, answer.status(), answer.body());
        return answer.json();
    }

    // ---- waiting ----------------------------------------------------------------------------------

    /** Polls the job until {@code accept} holds; returns it. */
    JsonNode awaitJob(String id, String what, Predicate<JsonNode> accept) throws InterruptedException {
        return Eventually.await(DEADLINE, "job " + id + ": " + what, () -> job(id), accept);
    }

    /** Waits until job {@code id} has fired {@code count} runs; returns them, newest first. */
    List<JsonNode> awaitRuns(String id, int count) throws InterruptedException {
        return Eventually.await(DEADLINE, "job " + id + " has " + count + " run(s)", () -> runsOf(id),
                runs -> runs.size() >= count);
    }

    /** Polls {@code GET /v1/runs/{id}} until the run's status is {@code status}; returns it. */
    JsonNode awaitRun(String runId, String status) throws InterruptedException {
        return Eventually.await(DEADLINE, "run " + runId + " becomes " + status, () -> run(runId),
                r -> status.equals(r.path("status").asText()));
    }

    /** Waits until the job's last firing settled as {@code status} ({@code ok} or {@code error}). */
    JsonNode awaitSettled(String id, String status) throws InterruptedException {
        return awaitJob(id, "settled " + status, j -> !j.path("state").asText().equals("running")
                && status.equals(j.path("last_status").asText(null)));
    }

    /**
     * Returns once the scheduler has made a whole pass at the clock's current time: everything due now
     * was fired, skipped or missed. A marker one-shot due ten minutes ago is missed (no run, no model
     * call) by the first pass that sees it; a second marker, created after the first was seen, is seen
     * by a later pass, which starts only after that first pass ended (the tick never overlaps itself).
     */
    void pass() throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            var at = clock.instant().minus(Duration.ofMinutes(10));
            var marker = createId("{\"name\":\"pass marker\",\"schedule\":\"" + at + "\"}");
            awaitJob(marker, "missed by a pass", j -> "Missed scheduled time".equals(j.path("last_error").asText(null)));
            assertEquals(200, admin.delete("/api/jobs/" + marker).status());
        }
    }

    Path home() {
        return host.home();
    }

    @Override
    public void close() {
        try {
            host.close();
        } finally {
            if (ownsUpstream) upstream.close();
        }
    }
}
