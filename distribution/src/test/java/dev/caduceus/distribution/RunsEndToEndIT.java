package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runs API end to end on the assembled distribution: a scripted upstream that calls the real
 * terminal tool, the durable journal in the server's SQLite file, subscribers that drop and resume
 * with {@code Last-Event-ID}, stop, approvals, idempotency, listing, every error code, and a server
 * killed with {@code kill -9} in the middle of a run while resuming is off (resuming: {@link ResumeIT}).
 */
class RunsEndToEndIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Map<String, String> AUTH = Caduceus.KEY_AUTH;

    @TempDir static Path home;
    static ScriptedUpstream upstream;
    static Caduceus server;
    static URI base;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        server = Caduceus.serve(home, env(upstream, Map.of()));
        base = server.awaitListening();
    }

    static Map<String, String> env(ScriptedUpstream upstream, Map<String, String> extra) {
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
        env.putAll(extra);
        return env;
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    @BeforeEach
    void noLeftoverTurns() {
        upstream.setDefault(Turn.error(500, "no turn scripted for this request"));
    }

    // ---- the done-when scenario -----------------------------------------------------------

    @Test
    void twoSubscribersSeeTheSameGapFreeSequenceAcrossADropAndResume() throws Exception {
        var chunks = IntStream.range(0, 20).mapToObj(i -> "w" + i + " ").toArray(String[]::new);
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "terminal", "{\"command\":\"sleep 0.5; echo tool-output\"}")),
                Turn.textChunks(chunks).chunkDelayMillis(40));
        var runId = submit("{\"input\":\"run the tool, then answer\"}");

        try (var a = events(runId, Map.of()); var b1 = events(runId, Map.of())) {
            assertEquals(200, a.status());
            assertEquals("text/event-stream", a.response().headers().firstValue("Content-Type").orElse("").split(";")[0]);
            var firstPart = new ArrayList<SseReader.Frame>();
            while (firstPart.isEmpty() || !firstPart.getLast().data().path("event").asText().equals("tool.started"))
                firstPart.add(b1.next());
            b1.close(); // the network goes away mid-run
            var lastSeen = firstPart.getLast().id();
            var whole = new ArrayList<SseReader.Frame>();
            while (whole.isEmpty() || whole.getLast().id() < lastSeen + 2) whole.add(a.next()); // events happen while b is gone
            List<SseReader.Frame> secondPart;
            try (var b2 = events(runId, Map.of("Last-Event-ID", String.valueOf(lastSeen)))) {
                secondPart = b2.rest();
                assertTrue(b2.comments().contains("stream closed"), b2.comments().toString());
            }
            whole.addAll(a.rest());
            assertTrue(a.comments().contains("stream closed"));

            var ids = whole.stream().map(SseReader.Frame::id).toList();
            assertEquals(LongStream.rangeClosed(1, whole.size()).boxed().toList(), ids, "gap-free from 1");
            var joined = new ArrayList<>(firstPart);
            joined.addAll(secondPart);
            assertEquals(ids, joined.stream().map(SseReader.Frame::id).toList(), "the dropped subscriber missed nothing");
            assertEquals(whole.stream().map(SseReader.Frame::data).toList(), joined.stream().map(SseReader.Frame::data).toList());

            var names = whole.stream().map(f -> f.data().path("event").asText()).toList();
            assertEquals("tool.started", names.get(0));
            assertEquals("tool.completed", names.get(1));
            assertEquals("run.completed", names.getLast());
            assertEquals(20, names.stream().filter("message.delta"::equals).count());
            var started = whole.get(0).data();
            assertEquals(runId, started.path("run_id").asText());
            assertEquals("terminal", started.path("tool").asText());
            assertEquals("call_1", started.path("tool_call_id").asText());
            assertEquals(1, started.path("seq").asLong());
            assertTrue(started.path("timestamp").isNumber());
            var completedTool = whole.get(1).data();
            assertFalse(completedTool.path("error").asBoolean());
            assertTrue(completedTool.path("duration").asDouble() >= 0.4, completedTool.toString());
            var done = whole.getLast().data();
            assertEquals(String.join("", chunks), done.path("output").asText());
            assertTrue(done.path("usage").has("total_tokens"));

            var status = json(get("/v1/runs/" + runId));
            assertEquals("hermes.run", status.path("object").asText());
            assertEquals("completed", status.path("status").asText());
            assertEquals(whole.size(), status.path("last_seq").asInt());
            assertEquals("run.completed", status.path("last_event").asText());
            assertEquals(String.join("", chunks), status.path("output").asText());

            // a late subscriber gets the whole history, then the close; one at the end closes at once
            try (var late = events(runId, Map.of())) {
                assertEquals(ids, late.rest().stream().map(SseReader.Frame::id).toList());
            }
            try (var atEnd = sse("/v1/runs/" + runId + "/events?after=" + whole.size(), Map.of())) {
                assertEquals(List.of(), atEnd.rest());
                assertEquals(List.of("stream closed"), atEnd.comments());
            }
        }
    }

    @Test
    void fiftySubscribersOfOneRunEachGetEveryEvent() throws Exception {
        var chunks = IntStream.range(0, 30).mapToObj(i -> "c" + i).toArray(String[]::new);
        upstream.enqueue(Turn.textChunks(chunks).chunkDelayMillis(20).delayMillis(300));
        var runId = submit("{\"input\":\"stream to many\"}");
        var readers = new ArrayList<CompletableFuture<List<Long>>>();
        for (int i = 0; i < 50; i++) {
            var f = new CompletableFuture<List<Long>>();
            Thread.ofVirtual().start(() -> {
                try (var r = events(runId, Map.of())) {
                    f.complete(r.rest().stream().map(SseReader.Frame::id).toList());
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
            readers.add(f);
        }
        var expected = LongStream.rangeClosed(1, 31).boxed().toList();
        for (var f : readers) assertEquals(expected, f.get(60, TimeUnit.SECONDS));
    }

    // ---- stop, approvals, steer ------------------------------------------------------------

    @Test
    void stopInterruptsARunningToolPromptlyAndEndsCancelled() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_s", "terminal", "{\"command\":\"sleep 30\"}")));
        var runId = submit("{\"input\":\"sleep\"}");
        try (var sub = events(runId, Map.of())) {
            assertEquals("tool.started", sub.next().data().path("event").asText()); // the command is running
            var notPending = post("/v1/runs/" + runId + "/approval", "{\"choice\":\"once\"}");
            assertError(notPending, 409, "approval_not_pending", "Run has no pending approval: " + runId);
            assertEquals("false", notPending.headers().firstValue("x-should-retry").orElse(null));

            var stop = post("/v1/runs/" + runId + "/stop", "");
            assertEquals(200, stop.statusCode(), stop.body());
            assertEquals("stopping", json(stop).path("status").asText());
            assertEquals(runId, json(stop).path("run_id").asText());
            var frames = sub.rest();
            assertEquals("run.cancelled", frames.getLast().data().path("event").asText(), frames.toString());
            assertTrue(frames.stream().noneMatch(f -> f.data().path("event").asText().equals("tool.completed")
                    && !f.data().path("error").asBoolean()), "the tool was interrupted, not waited for: " + frames);
        }
        assertEquals("cancelled", json(get("/v1/runs/" + runId)).path("status").asText());
        assertError(post("/v1/runs/" + runId + "/stop", ""), 404, "run_not_found", "Run not found: " + runId);
        assertError(post("/v1/runs/" + runId + "/steer", "{\"input\":\"more\"}"), 409, "run_not_accepting_steer", null);
        assertError(post("/v1/runs/" + runId + "/approval", "{\"choice\":\"once\"}"), 409, "approval_not_active",
                "Run has no active approval session: " + runId);
    }

    @Test
    void stopDuringAModelCallIsPromptToo() throws Exception {
        upstream.enqueue(Turn.textChunks("slow ", "answer ", "never ", "finishes").chunkDelayMillis(1_500));
        var runId = submit("{\"input\":\"talk slowly\"}");
        try (var sub = events(runId, Map.of())) {
            assertEquals("message.delta", sub.next().data().path("event").asText());
            assertEquals(200, post("/v1/runs/" + runId + "/stop", "").statusCode());
            var twice = post("/v1/runs/" + runId + "/stop", "");
            // stop twice: 200 while still stopping, 404 once the worker has already ended the run
            assertTrue(twice.statusCode() == 200 || twice.statusCode() == 404, twice.body());
            var frames = sub.rest();
            assertEquals("run.cancelled", frames.getLast().data().path("event").asText());
        }
    }

    @Test
    void aDangerousCommandWaitsForApprovalAndRunsOnceApproved() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_a", "terminal",
                "{\"command\":\"mkdir -p build-e2e && rm -rf build-e2e && echo removed\"}")));
        upstream.enqueue(Turn::quotingLastToolResult);
        var runId = submit("{\"input\":\"clean up\"}");
        try (var sub = events(runId, Map.of())) {
            JsonNode request = null;
            while (request == null) {
                var f = sub.next();
                if (f.data().path("event").asText().equals("approval.request")) request = f.data();
            }
            assertEquals("rm-recursive", request.path("pattern_key").asText());
            assertEquals(List.of("rm-recursive"), JSON.convertValue(request.path("pattern_keys"), List.class));
            assertEquals(List.of("once", "session", "always", "deny"), JSON.convertValue(request.path("choices"), List.class));
            assertTrue(request.path("command").asText().contains("rm -rf build-e2e"));
            assertTrue(request.path("request_id").asText().matches("[0-9a-f]{32}"), request.toString());

            var waiting = json(get("/v1/runs/" + runId));
            assertEquals("waiting_for_approval", waiting.path("status").asText());
            assertEquals(request.path("request_id").asText(), waiting.path("approval").path("request_id").asText());
            assertError(post("/v1/runs/" + runId + "/steer", "{\"input\":\"hurry\"}"), 409, "run_not_accepting_steer", null);
            assertError(post("/v1/runs/" + runId + "/approval", "{\"choice\":\"maybe\"}"), 400, "invalid_approval_choice",
                    "Invalid choice 'maybe'; use once, session, always or deny");
            assertError(post("/v1/runs/" + runId + "/approval", "{\"choice\":\"once\",\"request_id\":\"feed\"}"), 400,
                    "invalid_approval_request", null);

            var answered = post("/v1/runs/" + runId + "/approval", "{\"choice\":\"Approve\"}");
            assertEquals(200, answered.statusCode(), answered.body());
            assertEquals("hermes.run.approval_response", json(answered).path("object").asText());
            assertEquals("once", json(answered).path("choice").asText());
            assertEquals(1, json(answered).path("resolved").asInt());

            var rest = sub.rest();
            var responded = rest.getFirst().data();
            assertEquals("approval.responded", responded.path("event").asText());
            assertEquals("once", responded.path("choice").asText());
            assertFalse(responded.path("timed_out").asBoolean());
            var done = rest.getLast().data();
            assertEquals("run.completed", done.path("event").asText());
            assertTrue(done.path("output").asText().contains("removed"), done.toString());
            assertTrue(done.path("output").asText().contains("approved once by the user (rm-recursive)"), done.toString());
        }
    }

    @Test
    void steeringReachesTheNextModelCall() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_t", "terminal", "{\"command\":\"sleep 1; echo slept\"}")));
        upstream.recordRequests(true);
        upstream.enqueue(body -> Turn.text("saw: " + body.path("messages").get(body.path("messages").size() - 1)
                .path("content").asText()));
        var runId = submit("{\"input\":\"work\"}");
        try (var sub = events(runId, Map.of())) {
            assertEquals("tool.started", sub.next().data().path("event").asText());
            var steer = post("/v1/runs/" + runId + "/steer", "{\"message\":\"also check the logs\"}");
            assertEquals(200, steer.statusCode(), steer.body());
            assertEquals("{\"object\":\"hermes.run.steer\",\"run_id\":\"" + runId + "\",\"accepted\":true}", steer.body());
            var rest = sub.rest();
            assertEquals("run.steered", rest.getFirst().data().path("event").asText());
            assertEquals("saw: also check the logs", rest.getLast().data().path("output").asText());
        } finally {
            upstream.recordRequests(false);
        }
        assertError(post("/v1/runs/" + runId + "/steer", "{}"), 400, "invalid_steer_input", null);
    }

    @Test
    void aRunContinuesAStoredResponseThroughTheResponsesPluginsService() throws Exception {
        // endpoint-runs finds endpoint-responses' ResponseHistory by type: two plugin class loaders,
        // each with its own copy of the interface, the conversation carried across by the host.
        upstream.enqueue(Turn.text("The capital is Paris."));
        var created = post("/v1/responses", "{\"input\":\"capital of France?\"}");
        assertEquals(200, created.statusCode(), created.body());
        var responseId = json(created).path("id").asText();
        upstream.recordRequests(true);
        upstream.enqueue(Turn.text("Rome."));
        try {
            var runId = submit("{\"input\":\"and of Italy?\",\"previous_response_id\":\"" + responseId + "\"}");
            awaitStatus(runId, "completed");
            var messages = upstream.requests().getLast().body().path("messages").toString();
            assertTrue(messages.contains("capital of France?") && messages.contains("The capital is Paris.")
                    && messages.contains("and of Italy?"), messages);
        } finally {
            upstream.recordRequests(false);
        }
    }

    // ---- idempotency, listing ----------------------------------------------------------------

    @Test
    void anIdempotencyKeyReplaysTheRunAndRefusesAnotherPayload() throws Exception {
        upstream.enqueue(Turn.text("once only"));
        var headers = Map.of("Idempotency-Key", "e2e-key-1");
        var first = post("/v1/runs", "{\"input\":\"only once\"}", headers);
        assertEquals(202, first.statusCode(), first.body());
        var runId = json(first).path("run_id").asText();
        assertEquals("/v1/runs/" + runId, first.headers().firstValue("Location").orElse(null));
        awaitStatus(runId, "completed");
        var replay = post("/v1/runs", "{ \"input\" : \"only once\" }", headers);
        assertEquals(202, replay.statusCode(), replay.body());
        assertEquals(runId, json(replay).path("run_id").asText());
        assertTrue(json(replay).path("replayed").asBoolean());
        assertEquals("completed", json(replay).path("status").asText());
        assertEquals("true", replay.headers().firstValue("Idempotency-Replayed").orElse(null));
        var conflict = post("/v1/runs", "{\"input\":\"something else\"}", headers);
        assertError(conflict, 409, "idempotency_key_conflict", "Idempotency-Key was already used with a different request payload");
        assertEquals("false", conflict.headers().firstValue("x-should-retry").orElse(null));
        assertError(post("/v1/runs", "{\"input\":\"x\"}", Map.of("Idempotency-Key", "bad key")), 400,
                "invalid_idempotency_key", null);
    }

    @Test
    void runsAreListedNewestFirstWithFiltersAndACursor() throws Exception {
        var ids = new ArrayList<String>();
        for (int i = 0; i < 3; i++) {
            upstream.enqueue(Turn.text("listed " + i));
            var id = submit("{\"input\":\"list me\",\"session_id\":\"list-session\"}");
            awaitStatus(id, "completed");
            ids.add(id);
        }
        var page1 = json(get("/v1/runs?session_id=list-session&limit=2"));
        assertEquals("list", page1.path("object").asText());
        assertEquals(List.of(ids.get(2), ids.get(1)), runIds(page1));
        assertTrue(page1.path("has_more").asBoolean());
        var page2 = json(get("/v1/runs?session_id=list-session&limit=2&cursor=" + page1.path("next_cursor").asText()));
        assertEquals(List.of(ids.get(0)), runIds(page2));
        assertFalse(page2.path("has_more").asBoolean());
        assertEquals(List.of(), runIds(json(get("/v1/runs?session_id=list-session&status=running,waiting_for_approval"))));
        assertEquals(3, runIds(json(get("/v1/runs?session_id=list-session&status=completed"))).size());
    }

    // ---- bad input -------------------------------------------------------------------------

    @Test
    void badInputGetsTheContractsErrors() throws Exception {
        assertError(post("/v1/runs", "{\"input\":"), 400, "invalid_json", null);
        assertError(post("/v1/runs", "[1,2]"), 400, null, null);
        assertError(post("/v1/runs", "{}"), 400, "missing_input", null);
        assertError(post("/v1/runs", "{\"input\":[]}"), 400, null, null);
        assertError(post("/v1/runs", "{\"input\":1e400}"), 400, "invalid_input", null); // was a 500
        assertError(post("/v1/runs", "{\"input\":1e-400}"), 400, "missing_input", null);
        assertError(post("/v1/runs", "{\"input\":\"x\",\"model_options\":7}"), 400, "invalid_model_options", null);
        var unauthorized = server.send("POST", "/v1/runs", "{\"input\":\"x\"}", Map.of("Authorization", "Bearer wrong-key-123456789"));
        assertEquals(401, unauthorized.statusCode());
        assertEquals(401, server.get("/v1/runs", Map.of()).statusCode());
        var big = "{\"input\":\"" + "x".repeat(10_000_001) + "\"}";
        assertError(post("/v1/runs", big), 413, "body_too_large", null);

        var unknown = "run_00000000000000000000000000000000";
        assertError(get("/v1/runs/" + unknown), 404, "run_not_found", "Run not found: " + unknown);
        try (var sub = sse("/v1/runs/" + unknown + "/events", Map.of())) {
            assertEquals(404, sub.status());
            assertEquals("run_not_found", JSON.readTree(sub.body()).path("error").path("code").asText());
        }
        assertError(post("/v1/runs/" + unknown + "/stop", ""), 404, "run_not_found", null);
        assertError(post("/v1/runs/" + unknown + "/steer", "{\"input\":\"x\"}"), 404, "run_not_found", null);
        assertError(post("/v1/runs/" + unknown + "/approval", "{\"choice\":\"once\"}"), 404, "run_not_found", null);

        assertError(get("/v1/runs?status=sleeping"), 400, "invalid_status_filter", null);
        assertError(get("/v1/runs?limit=0"), 400, "invalid_limit", null);
        assertError(get("/v1/runs?limit=abc"), 400, "invalid_limit", null);
        assertError(get("/v1/runs?cursor=not-a-cursor"), 400, "invalid_cursor", null);

        upstream.enqueue(Turn.text("short"));
        var runId = submit("{\"input\":\"short\"}");
        awaitStatus(runId, "completed");
        for (var cursor : List.of("abc", "-1", "1.5")) {
            try (var sub = events(runId, Map.of("Last-Event-ID", cursor))) {
                assertEquals(400, sub.status(), cursor);
                var error = JSON.readTree(sub.body()).path("error");
                assertEquals("invalid_event_cursor", error.path("code").asText());
                assertEquals("Invalid event cursor: " + cursor, error.path("message").asText());
            }
        }
        try (var sub = sse("/v1/runs/" + runId + "/events?after=999", Map.of())) {
            assertEquals(400, sub.status());
            assertEquals("invalid_event_cursor", JSON.readTree(sub.body()).path("error").path("code").asText());
        }
        assertError(post("/v1/runs/" + runId + "/approval", "{\"choice\""), 400, "invalid_json", null);
    }

    // ---- crashes ----------------------------------------------------------------------------

    @Test
    void withResumingOffAServerKilledMidRunRestartsWithTheRunInterruptedAndItsJournalIntact(@TempDir Path crashHome)
            throws Exception {
        try (var slow = ScriptedUpstream.start()) {
            slow.setDefault(Turn.error(500, "unscripted"));
            slow.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_k", "terminal", "{\"command\":\"sleep 20\"}")));
            var env = env(slow, Map.of("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "1", "CADUCEUS__RUNS__RESUME", "false"));
            var first = Caduceus.serve(crashHome, env);
            String runId;
            try {
                var created = first.send("POST", "/v1/runs", "{\"input\":\"long work\"}",
                        with(AUTH, Map.of("Idempotency-Key", "crash-key")));
                assertEquals(202, created.statusCode(), created.body());
                runId = json(created).path("run_id").asText();
                try (var sub = SseReader.open(HTTP, first.awaitListening().resolve("/v1/runs/" + runId + "/events"), AUTH)) {
                    assertEquals("tool.started", sub.next().data().path("event").asText());
                }
                // the cap counts the live run; a replay of its key is still answered
                var full = first.send("POST", "/v1/runs", "{\"input\":\"more\"}", AUTH);
                assertError(full, 429, "rate_limit_exceeded", "Too many concurrent runs (max 1)");
                var replay = first.send("POST", "/v1/runs", "{\"input\":\"long work\"}",
                        with(AUTH, Map.of("Idempotency-Key", "crash-key")));
                assertEquals(202, replay.statusCode(), replay.body());
                assertEquals("running", json(replay).path("status").asText());
            } finally {
                first.process.destroyForcibly(); // kill -9
                first.process.waitFor(30, TimeUnit.SECONDS);
            }
            var second = Caduceus.serve(crashHome, env);
            try {
                var status = json(second.get("/v1/runs/" + runId, AUTH));
                assertEquals("interrupted", status.path("status").asText(), status.toString());
                assertEquals("The server restarted before this run settled.", status.path("error").asText());
                assertEquals("run.failed", status.path("last_event").asText());
                try (var sub = SseReader.open(HTTP, second.awaitListening().resolve("/v1/runs/" + runId + "/events"), AUTH)) {
                    var frames = sub.rest();
                    assertEquals(LongStream.rangeClosed(1, frames.size()).boxed().toList(),
                            frames.stream().map(SseReader.Frame::id).toList());
                    assertEquals("call_k", frames.getFirst().data().path("tool_call_id").asText());
                    var last = frames.getLast().data();
                    assertEquals("run.failed", last.path("event").asText());
                    assertTrue(last.path("interrupted").asBoolean());
                }
                var health = json(second.get("/health/detailed", AUTH));
                assertEquals("ok", health.path("readiness").path("checks").path("database").path("status").asText());
                var replay = second.send("POST", "/v1/runs", "{\"input\":\"long work\"}",
                        with(AUTH, Map.of("Idempotency-Key", "crash-key")));
                assertEquals(202, replay.statusCode());
                assertEquals(runId, json(replay).path("run_id").asText());
                assertEquals("interrupted", json(replay).path("status").asText());
            } finally {
                second.close();
            }
        }
    }

    // ---- helpers ------------------------------------------------------------------------------

    static Map<String, String> with(Map<String, String> a, Map<String, String> b) {
        var all = new LinkedHashMap<>(a);
        all.putAll(b);
        return all;
    }

    static String submit(String body) throws Exception {
        var response = post("/v1/runs", body);
        assertEquals(202, response.statusCode(), response.body());
        var json = json(response);
        assertEquals("started", json.path("status").asText());
        assertFalse(json.path("replayed").asBoolean());
        var runId = json.path("run_id").asText();
        assertTrue(runId.matches("run_[0-9a-f]{32}"), runId);
        return runId;
    }

    static HttpResponse<String> post(String path, String body) throws Exception {
        return post(path, body, Map.of());
    }

    static HttpResponse<String> post(String path, String body, Map<String, String> headers) throws Exception {
        return server.send("POST", path, body, with(with(AUTH, Map.of("Content-Type", "application/json")), headers));
    }

    static HttpResponse<String> get(String path) throws Exception {
        return server.get(path, AUTH);
    }

    static SseReader events(String runId, Map<String, String> headers) throws Exception {
        return sse("/v1/runs/" + runId + "/events", headers);
    }

    static SseReader sse(String path, Map<String, String> headers) throws Exception {
        return SseReader.open(HTTP, base.resolve(path), with(AUTH, headers));
    }

    static JsonNode json(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }

    static List<String> runIds(JsonNode list) {
        var ids = new ArrayList<String>();
        list.path("data").forEach(r -> ids.add(r.path("run_id").asText()));
        return ids;
    }

    static void assertError(HttpResponse<String> response, int status, String code, String message) throws Exception {
        assertEquals(status, response.statusCode(), response.body());
        var error = json(response).path("error");
        assertNotNull(error.get("message"), response.body());
        assertTrue(error.has("type") && error.has("param") && error.has("code"), response.body());
        if (code != null) assertEquals(code, error.path("code").asText(), response.body());
        if (message != null) assertEquals(message, error.path("message").asText());
    }

    static void awaitStatus(String runId, String status) throws Exception {
        Eventually.await(Duration.ofSeconds(20), "run " + runId + " becomes " + status,
                () -> json(get("/v1/runs/" + runId)).path("status").asText(), status::equals);
    }
}
