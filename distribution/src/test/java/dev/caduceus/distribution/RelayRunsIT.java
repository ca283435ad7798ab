package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proxy mode with the remote's runs API (issue 20 part 3): a run on the front runs as a run on the
 * back, so the back's approval request for a dangerous command is answered through the front's
 * runs API, and a stop on the front kills the back's tool process. Two real instances; the back's
 * model is scripted and its terminal runs in the default sandbox.
 */
class RelayRunsIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String FRONT_KEY = "the-front-key-is-long-enough-too";
    static final Map<String, String> FRONT_AUTH = Map.of("Authorization", "Bearer " + FRONT_KEY);

    @TempDir static Path tmp;
    static ScriptedUpstream upstream;
    static Caduceus back;
    static Caduceus front;
    static URI frontBase;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
        back = Caduceus.serve(Files.createDirectories(tmp.resolve("back")), env);
        var frontEnv = Map.of("API_SERVER_KEY", FRONT_KEY, "GATEWAY_PROXY_URL", back.awaitListening().toString(),
                "GATEWAY_PROXY_KEY", Caduceus.TEST_KEY);
        front = Caduceus.serve(Files.createDirectories(tmp.resolve("front")), frontEnv);
        frontBase = front.awaitListening();
    }

    @AfterAll
    static void stop() throws Exception {
        if (front != null) front.close();
        if (back != null) back.close();
        if (upstream != null) upstream.close();
    }

    @BeforeEach
    void noLeftoverTurns() {
        upstream.setDefault(Turn.error(500, "no turn scripted for this request"));
    }

    @Test
    void theBacksApprovalRequestIsAnsweredOnTheFrontAndTheCommandRuns() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_a", "terminal", "{\"command\":\"rm -rf build/ && echo cleaned\"}")));
        upstream.enqueue(Turn::quotingLastToolResult);
        var runId = submit("{\"input\":\"clean the build\"}");
        try (var events = events(runId)) {
            JsonNode request = null;
            while (request == null) {
                var f = events.next();
                assertTrue(f != null, "the stream ended before an approval request");
                if (f.data().path("event").asText().equals("approval.request")) request = f.data();
            }
            assertTrue(request.path("command").asText().contains("rm -rf build/"), request.toString());
            assertEquals("rm-recursive", request.path("pattern_key").asText(), request.toString());
            assertEquals(List.of("once", "session", "always", "deny"), JSON.convertValue(request.path("choices"), List.class));

            var waiting = json(front.get("/v1/runs/" + runId, FRONT_AUTH));
            assertEquals("waiting_for_approval", waiting.path("status").asText(), waiting.toString());
            assertEquals(request.path("request_id").asText(), waiting.path("approval").path("request_id").asText());

            var answered = post("/v1/runs/" + runId + "/approval", "{\"choice\":\"once\"}");
            assertEquals(200, answered.statusCode(), answered.body());
            assertEquals(1, json(answered).path("resolved").asInt());

            var rest = events.rest();
            assertEquals("approval.responded", rest.getFirst().data().path("event").asText(), rest.toString());
            var done = rest.getLast().data();
            assertEquals("run.completed", done.path("event").asText(), rest.toString());
            assertTrue(done.path("output").asText().contains("cleaned"), done.toString());
            assertTrue(done.path("output").asText().contains("approved once by the user (rm-recursive)"), done.toString());
        }
        assertEquals("completed", json(front.get("/v1/runs/" + runId, FRONT_AUTH)).path("status").asText());
    }

    @Test
    void aStopOnTheFrontKillsTheBacksToolProcess() throws Exception {
        var seconds = "30." + (100_000 + ThreadLocalRandom.current().nextInt(900_000));
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_s", "terminal", "{\"command\":\"sleep " + seconds + "\"}")));
        var runId = submit("{\"input\":\"sleep for a while\"}");
        try (var events = events(runId)) {
            var started = events.next();
            assertEquals("tool.started", started.data().path("event").asText(), started.raw());
            assertEquals("terminal", started.data().path("tool").asText());
            awaitProcesses(seconds, true);

            var stop = post("/v1/runs/" + runId + "/stop", "");
            assertEquals(200, stop.statusCode(), stop.body());
            awaitProcesses(seconds, false);
            var rest = events.rest();
            assertEquals("run.cancelled", rest.getLast().data().path("event").asText(), rest.toString());
        }
        assertEquals("cancelled", json(front.get("/v1/runs/" + runId, FRONT_AUTH)).path("status").asText());
    }

    // ---- helpers ----------------------------------------------------------------------------

    /** Polls /proc every 25 ms (10 s at most) until a process with {@code argument} in its command line exists or not. */
    static void awaitProcesses(String argument, boolean present) throws Exception {
        Eventually.await(Duration.ofSeconds(10), (present ? "a process has " : "no process has ") + argument,
                () -> processesWith(argument), found -> !found.isEmpty() == present);
    }

    static List<String> processesWith(String argument) throws IOException {
        try (var dirs = Files.list(Path.of("/proc"))) {
            return dirs.filter(d -> d.getFileName().toString().chars().allMatch(Character::isDigit))
                    .map(d -> {
                        try {
                            return d.getFileName() + ": " + new String(Files.readAllBytes(d.resolve("cmdline")),
                                    StandardCharsets.UTF_8).replace('\0', ' ');
                        } catch (IOException gone) {
                            return "";
                        }
                    })
                    .filter(line -> line.contains(argument))
                    .toList();
        }
    }

    /**
     * Issue 42 through the relay: the front's run waits (requires_action) for the caller's own function while the
     * back's run waits for it too; the caller answers on the front, the front hands the output to the back, and the
     * back's turn goes on with its own terminal step before it.
     */
    @Test
    void theCallersOwnFunctionIsAnsweredOnTheFrontAndTheBacksTurnGoesOn() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_t", "terminal", "{\"command\":\"echo back-step\"}")));
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("up_1", "lookup_code", "{\"topic\":\"tea\"}")));
        upstream.enqueue(Turn::quotingLastToolResult);
        var runId = submit("{\"input\":\"look it up\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"lookup_code\","
                + "\"parameters\":{\"type\":\"object\",\"properties\":{\"topic\":{\"type\":\"string\"}}}}}]}");
        var waiting = frontRun(runId, "requires_action");
        var call = waiting.at("/required_action/submit_tool_outputs/tool_calls/0");
        assertEquals("lookup_code", call.at("/function/name").asText(), waiting.toString());
        var answered = post("/v1/runs/" + runId + "/tool_outputs", "{\"tool_outputs\":[{\"tool_call_id\":\""
                + call.path("id").asText() + "\",\"output\":\"code-for-tea\"}]}");
        assertEquals(200, answered.statusCode(), answered.body());
        var done = frontRun(runId, "completed");
        assertEquals("Tool result: code-for-tea", done.path("output").asText(), String.valueOf(done));
        var last = upstream.chatRequests().getLast().body().path("messages").toString();
        assertTrue(last.contains("back-step") && last.indexOf("code-for-tea") > last.indexOf("back-step"), last);
    }

    /** The front's run status once it is {@code status} (polled, 30 s at most). */
    static JsonNode frontRun(String runId, String status) throws Exception {
        return dev.caduceus.platform.testkit.Eventually.await(Duration.ofSeconds(30), "run " + runId + " becomes " + status,
                () -> json(front.send("GET", "/v1/runs/" + runId, null, FRONT_AUTH)),
                run -> run.path("status").asText().equals(status));
    }

    static HttpResponse<String> post(String path, String body) throws Exception {
        var all = new LinkedHashMap<String, String>(FRONT_AUTH);
        all.put("Content-Type", "application/json");
        return front.send("POST", path, body, all);
    }

    static String submit(String body) throws Exception {
        var response = post("/v1/runs", body);
        assertEquals(202, response.statusCode(), response.body());
        return json(response).path("run_id").asText();
    }

    static JsonNode json(HttpResponse<String> response) throws IOException {
        return JSON.readTree(response.body());
    }

    static SseReader events(String runId) throws Exception {
        return SseReader.open(HTTP, frontBase.resolve("/v1/runs/" + runId + "/events"), FRONT_AUTH);
    }
}
