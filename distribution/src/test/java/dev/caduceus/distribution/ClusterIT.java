package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code bin/caduceus serve} processes (A, B, C), each with its own state directory, on one real
 * PostgreSQL database, behaving as one server: a run started on A is followed on B across a disconnect
 * and stopped through C; an approval asked on A is answered on B; one Idempotency-Key sent to A and B at
 * once starts one run; a chain of Responses turns alternates nodes; 100 one-shot jobs fire exactly once
 * across the nodes; and {@code kill -9} of a node with 100 runs in flight lets the others resume every one, journals
 * gap-free. (The kill runs last: it takes A away.)
 */
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class ClusterIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Map<String, String> AUTH = Caduceus.KEY_AUTH;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir static Path homes;
    static ScriptedUpstream upstream;
    static TestPostgres.Db pg;
    static Caduceus a;
    static Caduceus b;
    static Caduceus c;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        pg = TestPostgres.shared().newDatabase();
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
        env.put("CADUCEUS_DATABASE_URL", pg.url());
        env.put("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0");
        // the nodes start one after the other: the first migrates, the others find it done
        a = Caduceus.serve(homes.resolve("a"), env);
        b = Caduceus.serve(homes.resolve("b"), env);
        c = Caduceus.serve(homes.resolve("c"), env);
    }

    @AfterAll
    static void stop() throws Exception {
        for (var node : new Caduceus[] {a, b, c}) if (node != null) node.close();
        if (upstream != null) upstream.close();
    }

    @BeforeEach
    void noLeftoverTurns() {
        upstream.setDefault(Turn.error(500, "no turn scripted for this request"));
        assertEquals(0, upstream.pending(), "turns left over by an earlier test");
    }

    @Test
    void everyNodeReportsTheClusterInItsHealth() throws Exception {
        var ids = new HashSet<String>();
        for (var node : List.of(a, b, c)) {
            var check = json(node.get("/health/detailed", AUTH)).path("readiness").path("checks").path("cluster");
            assertEquals("ok", check.path("status").asText(), check.toString());
            assertEquals("postgresql", check.path("mode").asText(), check.toString());
            assertEquals(3, check.path("nodes_alive").asInt(), check.toString());
            ids.add(check.path("node_id").asText());
        }
        assertEquals(3, ids.size(), "each node has its own id: " + ids);
    }

    @Test
    void aRunStartedOnAIsTailedOnBAcrossADisconnectAndStoppedThroughC() throws Exception {
        var chunks = IntStream.range(0, 30).mapToObj(i -> "w" + i + " ").toArray(String[]::new);
        upstream.enqueue(Turn.textChunks(chunks).chunkDelayMillis(60));
        var runId = submit(a, "{\"input\":\"stream a while\"}", Map.of());
        List<SseReader.Frame> first = new ArrayList<>();
        try (var sub = events(b, runId, Map.of())) {
            while (first.size() < 5) first.add(sub.next());
        }
        long cursor = first.getLast().id();
        List<SseReader.Frame> rest;
        try (var sub = events(b, runId, Map.of("Last-Event-ID", String.valueOf(cursor)))) {
            rest = sub.rest();
        }
        var ids = new ArrayList<Long>();
        first.forEach(f -> ids.add(f.id()));
        rest.forEach(f -> ids.add(f.id()));
        assertEquals(LongStream.rangeClosed(1, ids.size()).boxed().toList(), ids, "gap-free across nodes and the resume");
        assertEquals("run.completed", rest.getLast().data().path("event").asText());
        // the same journal read on A, the owner
        try (var sub = events(a, runId, Map.of())) {
            assertEquals(ids, sub.rest().stream().map(SseReader.Frame::id).toList());
        }

        upstream.enqueue(Turn.textChunks("slow ", "answer ", "never ", "finishes").chunkDelayMillis(1_500));
        var slow = submit(a, "{\"input\":\"take your time\"}", Map.of());
        awaitStatus(c, slow, "running");
        var stopped = c.send("POST", "/v1/runs/" + slow + "/stop", "", AUTH);
        assertEquals(200, stopped.statusCode(), stopped.body());
        assertEquals("stopping", JSON.readTree(stopped.body()).path("status").asText(), stopped.body());
        awaitStatus(b, slow, "cancelled");
        try (var sub = events(c, slow, Map.of())) {
            assertEquals("run.cancelled", sub.rest().getLast().data().path("event").asText());
        }
        var again = c.send("POST", "/v1/runs/" + slow + "/stop", "", AUTH);
        assertEquals(404, again.statusCode(), again.body()); // as on one node: the run is over
    }

    @Test
    void anApprovalAskedOnAIsAnsweredOnB() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_a", "terminal",
                "{\"command\":\"mkdir -p build-cluster && rm -rf build-cluster && echo removed\"}")));
        upstream.enqueue(Turn::quotingLastToolResult);
        var runId = submit(a, "{\"input\":\"clean up\"}", Map.of());
        var waiting = awaitStatus(b, runId, "waiting_for_approval");
        assertEquals("rm-recursive", waiting.path("approval").path("pattern_key").asText(), waiting.toString());
        var answered = b.send("POST", "/v1/runs/" + runId + "/approval", "{\"choice\":\"once\"}", json());
        assertEquals(200, answered.statusCode(), answered.body());
        var done = awaitStatus(c, runId, "completed");
        assertTrue(done.path("output").asText().contains("removed"), done.toString());
        var late = b.send("POST", "/v1/runs/" + runId + "/approval", "{\"choice\":\"once\"}", json());
        assertEquals(409, late.statusCode(), late.body());
        assertEquals("approval_not_active", JSON.readTree(late.body()).path("error").path("code").asText());
    }

    @Test
    void oneIdempotencyKeySentToAAndBAtTheSameMomentStartsOneRun() throws Exception {
        upstream.enqueue(Turn.text("once only").delayMillis(500)); // a second run would get the default: an error
        var go = new CountDownLatch(1);
        var answers = new ArrayList<CompletableFuture<HttpResponse<String>>>();
        for (var node : List.of(a, b)) {
            answers.add(CompletableFuture.supplyAsync(() -> {
                try {
                    go.await();
                    return node.send("POST", "/v1/runs", "{\"input\":\"exactly once\"}",
                            with(json(), Map.of("Idempotency-Key", "cluster-key-1")));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        go.countDown();
        var ids = new HashSet<String>();
        for (var f : answers) {
            var r = f.get(30, TimeUnit.SECONDS);
            assertEquals(202, r.statusCode(), r.body());
            ids.add(JSON.readTree(r.body()).path("run_id").asText());
        }
        assertEquals(1, ids.size(), "one run for one key: " + ids);
        var runId = ids.iterator().next();
        awaitStatus(c, runId, "completed");
        var listed = json(c.get("/v1/runs?limit=100", AUTH));
        long withInput = 0;
        for (var r : listed.path("data")) if (r.path("run_id").asText().equals(runId)) withInput++;
        assertEquals(1, withInput);
        assertEquals(1, upstream.requests().stream().filter(q -> q.body().toString().contains("exactly once")).count(),
                "the model was asked once");
    }

    @Test
    void aChainOfTenResponsesAlternatesNodes() throws Exception {
        String previous = null;
        var nodes = List.of(a, b, c);
        for (int turn = 1; turn <= 10; turn++) {
            upstream.enqueue(Turn.text("answer " + turn));
            var node = nodes.get(turn % 3);
            var body = "{\"model\":\"hermes-agent\",\"input\":\"turn " + turn + "\""
                    + (previous == null ? "" : ",\"previous_response_id\":\"" + previous + "\"") + "}";
            var r = node.send("POST", "/v1/responses", body, json());
            assertEquals(200, r.statusCode(), r.body());
            previous = JSON.readTree(r.body()).path("id").asText();
        }
        // turn 10, on B, was sent the whole chain that A, B and C stored turn by turn
        var tenth = upstream.requests().stream().map(q -> q.body().toString()).filter(text -> text.contains("turn 10\""))
                .reduce((x, y) -> y).orElseThrow();
        for (int turn = 1; turn <= 9; turn++) {
            assertTrue(tenth.contains("turn " + turn + "\""), "turn " + turn + " missing: " + tenth);
            assertTrue(tenth.contains("answer " + turn + "\""), "answer " + turn + " missing: " + tenth);
        }
        var last = json(a.get("/v1/responses/" + previous, AUTH));
        assertTrue(last.toString().contains("answer 10"), last.toString());
        var items = json(c.get("/v1/responses/" + previous + "/input_items?limit=100", AUTH));
        assertTrue(items.toString().contains("turn 1\"") && items.toString().contains("turn 10\""), items.toString());
    }

    @Test
    void aHundredOneShotJobsDueWithinFiveSecondsFireExactlyOnceAcrossTheNodes() throws Exception {
        upstream.setDefault(Turn.text("job done"));
        var at = Instant.now().plusSeconds(6).truncatedTo(ChronoUnit.SECONDS);
        var nodes = List.of(a, b, c);
        var jobIds = new ArrayList<String>();
        for (int i = 0; i < 100; i++) {
            var due = at.plusMillis(i * 40L).truncatedTo(ChronoUnit.SECONDS);
            var r = nodes.get(i % 3).send("POST", "/api/jobs", "{\"name\":\"burst-" + i + "\",\"schedule\":\"" + due
                    + "\",\"prompt\":\"burst job " + i + "\"}", json());
            assertEquals(201, r.statusCode(), r.body());
            jobIds.add(JSON.readTree(r.body()).path("job").path("id").asText());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int fired = 0;
        while (System.nanoTime() < deadline) {
            fired = 0;
            for (var id : jobIds) fired += json(a.get("/v1/runs?job_id=" + id, AUTH)).path("data").size();
            if (fired >= 100 && allCompleted(jobIds)) break;
            TimeUnit.MILLISECONDS.sleep(500); // polling the shared store, bounded by the deadline
        }
        assertEquals(100, fired);
        for (var id : jobIds) {
            var runs = json(b.get("/api/jobs/" + id + "/runs", AUTH)).path("runs");
            assertEquals(1, runs.size(), id + ": " + runs);
        }
        assertEquals(100, upstream.requests().stream().filter(q -> q.body().toString().contains("burst job ")).count(),
                "the model was asked once per job");
    }

    private static boolean allCompleted(List<String> jobIds) throws Exception {
        for (var id : jobIds) {
            var runs = json(c.get("/v1/runs?job_id=" + id, AUTH)).path("data");
            if (runs.size() != 1 || !"completed".equals(runs.get(0).path("status").asText())) return false;
        }
        return true;
    }

    /**
     * Last: it kills A. 100 runs in flight on A, 25 in each state of issue 46 (waiting for the model, inside a
     * {@code sleep 90} terminal call, waiting for an approval, between steps): once A's lease expires
     * B and C resume every one between them (each claims its share), each completes with the right transcript, no command runs twice, the journals stay
     * gap-free. Six background responses in flight on A go on too, and their clients pick their streams up on B.
     * Prints the time from the kill to each run's {@code run.resumed}.
     */
    @Test
    @org.junit.jupiter.api.Order(Integer.MAX_VALUE)
    void zKillingANodeWithAHundredRunsInFlightLetsTheOthersResumeEveryOne() throws Exception {
        var scenario = new ResumeScenario(upstream, List.of(Caduceus.defaultWorkspace(homes.resolve("a")),
                Caduceus.defaultWorkspace(homes.resolve("b")), Caduceus.defaultWorkspace(homes.resolve("c"))));
        scenario.submit(a, 25); // (no job: any node's scheduler may fire it; ResumeIT has one)
        for (var state : List.of(ResumeScenario.State.MODEL, ResumeScenario.State.TOOL, ResumeScenario.State.BETWEEN))
            for (int i = 0; i < 2; i++) scenario.submitBackground(a, state, "bg" + state.name().toLowerCase() + i);
        scenario.awaitStates(a);
        scenario.killing();
        a.process.destroyForcibly(); // kill -9
        a.process.waitFor(30, TimeUnit.SECONDS);
        scenario.dead();
        var seconds = scenario.verify(List.of(b, c));
        assertEquals(100, seconds.size());
        scenario.verifyBackground(b); // their clients pick the streams up on another node
        System.out.println("ClusterIT: kill -9 of a node to run.resumed on another (PostgreSQL, 3 nodes): "
                + ResumeScenario.summary(seconds));
        assertTrue(seconds.stream().allMatch(s -> s < 30), "resumed within 30 s of the kill: " + seconds);
        assertEquals(2, scenario.resumedBy().size(), "the runs spread over both nodes alive: " + scenario.resumedBy());
    }

    // ---- helpers ----------------------------------------------------------------------------

    static Map<String, String> json() {
        return with(AUTH, Map.of("Content-Type", "application/json"));
    }

    static String submit(Caduceus node, String body, Map<String, String> headers) throws Exception {
        var r = node.send("POST", "/v1/runs", body, with(json(), headers));
        assertEquals(202, r.statusCode(), r.body());
        return JSON.readTree(r.body()).path("run_id").asText();
    }

    static SseReader events(Caduceus node, String runId, Map<String, String> headers) throws Exception {
        return SseReader.open(HTTP, node.awaitListening().resolve("/v1/runs/" + runId + "/events"), with(AUTH, headers));
    }

    static JsonNode awaitStatus(Caduceus node, String runId, String status) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = json(node.get("/v1/runs/" + runId, AUTH));
            if (status.equals(last.path("status").asText())) return last;
            TimeUnit.MILLISECONDS.sleep(50); // polling the shared store, bounded by the deadline
        }
        throw new AssertionError("run " + runId + " never became " + status + ": " + last);
    }

    static JsonNode json(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }

    static Map<String, String> with(Map<String, String> a, Map<String, String> b) {
        var all = new HashMap<>(a);
        all.putAll(b);
        return all;
    }
}
