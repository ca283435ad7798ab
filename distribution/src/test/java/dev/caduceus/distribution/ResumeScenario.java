package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

/**
 * Runs of {@code /v1/runs} caught by a {@code kill -9} in the four states issue 46 names, and what must be true
 * once they are resumed. Each run's input is {@code resume-case <state> <tag>}; the scripted upstream answers each
 * model call by the run it comes from (runs call it concurrently):
 * <ul>
 *   <li>{@link State#MODEL}: the first call hangs until the kill; the call made again after it answers;</li>
 *   <li>{@link State#TOOL}: a terminal call {@code echo >> marker; sleep 90} is running (long enough for a loaded
 *       machine to bring every run to its state before the kill); after the kill the model
 *       must be told that the call was interrupted, and the marker proves the command ran once;</li>
 *   <li>{@link State#APPROVAL}: a terminal call ({@code rm -rf}) waits for approval; after the kill it is asked
 *       again, approved, and runs once;</li>
 *   <li>{@link State#BETWEEN}: a finished step (a terminal call), then the next model call hangs until the kill;
 *       the finished call is not run again.</li>
 * </ul>
 * Every run must then complete with one gap-free event sequence holding one {@code run.resumed}. Thread-safe.
 */
final class ResumeScenario {
    enum State { MODEL, TOOL, APPROVAL, BETWEEN }

    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final long HANG_MILLIS = 120_000;

    private final AtomicBoolean killed = new AtomicBoolean();
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private final Map<String, State> states = new LinkedHashMap<>();   // run id → state
    private final Map<String, String> tags = new LinkedHashMap<>();     // run id → tag
    private final Map<String, String> jobs = new LinkedHashMap<>();     // run id → the job that fired it
    private final List<Path> workspaces;
    private long killedAtMillis;
    private final java.util.Set<String> resumedBy = ConcurrentHashMap.newKeySet();
    private final Map<String, State> responses = new LinkedHashMap<>();        // background response id → state
    private final Map<String, String> responseTags = new LinkedHashMap<>();    // background response id → tag
    private final Map<String, Follower> followers = new LinkedHashMap<>();     // background response id → its client

    /** @param workspaces where the runs' terminal commands write their markers: each node's */
    ResumeScenario(ScriptedUpstream upstream, List<Path> workspaces) {
        this.workspaces = List.copyOf(workspaces);
        upstream.setDefault(this::answer);
    }

    private Turn answer(JsonNode body) {
        String input = null;
        boolean toolResult = false;
        for (var m : body.path("messages")) {
            var text = m.path("content").asText("");
            if (m.path("role").asText().equals("user") && text.startsWith("resume-case ")) input = text;
            if (m.path("role").asText().equals("tool")) toolResult = true;
        }
        if (input == null) return Turn.error(500, "not a resume-case run");
        var parts = input.split(" ");
        var state = State.valueOf(parts[1]);
        var tag = parts[2];
        calls.computeIfAbsent(tag, t -> new AtomicInteger()).incrementAndGet();
        return switch (state) {
            case MODEL -> killed.get() ? Turn.text("answered " + tag) : hang();
            case TOOL -> toolResult ? Turn.quotingLastToolResult(body)
                    : terminal(tag, "echo ran >> " + marker(tag) + "; sleep 90; echo slept");
            case APPROVAL -> toolResult ? Turn.quotingLastToolResult(body)
                    : terminal(tag, "mkdir -p scratch-" + tag + " && rm -rf scratch-" + tag + " && echo ran >> " + marker(tag));
            case BETWEEN -> !toolResult ? terminal(tag, "echo ran >> " + marker(tag) + "; echo step one")
                    : killed.get() ? Turn.quotingLastToolResult(body) : hang();
        };
    }

    /** A model call in flight at the kill: answered only once the node that made it is gone (or after 2 minutes). */
    private Turn hang() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HANG_MILLIS);
        try {
            while (!killed.get() && System.nanoTime() < deadline) TimeUnit.MILLISECONDS.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Turn.text("too late");
    }

    private static Turn terminal(String tag, String command) {
        return Turn.toolCalls(Turn.ToolCall.of("call_" + tag, "terminal", JSON.createObjectNode().put("command", command).toString()));
    }

    private static String marker(String tag) {
        return "resume-" + tag + ".marker";
    }

    /** Starts {@code perState} runs of each state on {@code node}. */
    void submit(Caduceus node, int perState) throws Exception {
        for (var state : State.values()) {
            for (int i = 0; i < perState; i++) {
                var tag = state.name().toLowerCase() + i;
                var r = node.send("POST", "/v1/runs", JSON.createObjectNode().put("input", "resume-case " + state + " " + tag)
                        .toString(), Map.of("Authorization", Caduceus.KEY_AUTH.get("Authorization"), "Content-Type",
                        "application/json"));
                assertEquals(202, r.statusCode(), r.body());
                var id = JSON.readTree(r.body()).path("run_id").asText();
                states.put(id, state);
                tags.put(id, tag);
            }
        }
    }

    /**
     * Creates an hourly job whose prompt is a {@code state} case and fires it now ({@code POST /api/jobs/{id}/run});
     * its run joins the scenario, and {@link #verify} checks that the job fired once and settled ok.
     */
    void submitJob(Caduceus node, State state, String tag) throws Exception {
        var auth = Map.of("Authorization", Caduceus.KEY_AUTH.get("Authorization"), "Content-Type", "application/json");
        var created = node.send("POST", "/api/jobs", JSON.createObjectNode().put("name", "resume-" + tag)
                .put("schedule", "every 1h").put("prompt", "resume-case " + state + " " + tag).toString(), auth);
        assertEquals(201, created.statusCode(), created.body());
        var jobId = JSON.readTree(created.body()).path("job").path("id").asText();
        var fired = node.send("POST", "/api/jobs/" + jobId + "/run", "", auth);
        assertEquals(200, fired.statusCode(), fired.body());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode runs;
        while ((runs = JSON.readTree(node.get("/v1/runs?job_id=" + jobId, Caduceus.KEY_AUTH).body()).path("data")).isEmpty()) {
            if (System.nanoTime() > deadline) throw new AssertionError("job " + jobId + " started no run");
            TimeUnit.MILLISECONDS.sleep(20); // polling the runs list, bounded by the deadline
        }
        var id = runs.get(0).path("run_id").asText();
        states.put(id, state);
        tags.put(id, tag);
        jobs.put(id, jobId);
    }

    /**
     * Creates a background response ({@code POST /v1/responses}) in {@code state} (not {@link State#APPROVAL}: a
     * Responses turn never waits for a person) and follows its stream as a client would, until the kill cuts it.
     */
    void submitBackground(Caduceus node, State state, String tag) throws Exception {
        if (state == State.APPROVAL) throw new IllegalArgumentException("a background response asks no approval");
        var r = node.send("POST", "/v1/responses", JSON.createObjectNode().put("input", "resume-case " + state + " " + tag)
                .put("background", true).toString(), Map.of("Authorization", Caduceus.KEY_AUTH.get("Authorization"),
                "Content-Type", "application/json"));
        assertEquals(200, r.statusCode(), r.body());
        var id = JSON.readTree(r.body()).path("id").asText();
        responses.put(id, state);
        responseTags.put(id, tag);
        followers.put(id, Follower.start(node, id));
    }

    /** A client following a background response's stream from its start, until the connection ends. */
    private static final class Follower {
        private final List<JsonNode> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        private Thread thread;

        static Follower start(Caduceus node, String id) throws Exception {
            var follower = new Follower();
            var sse = SseReader.open(HTTP, node.awaitListening().resolve("/v1/responses/" + id + "?stream=true"),
                    Caduceus.KEY_AUTH);
            follower.thread = Thread.ofVirtual().start(() -> {
                try (sse) {
                    for (SseReader.Frame f; (f = sse.next()) != null; ) follower.seen.add(f.data());
                } catch (java.io.IOException e) {
                    // the server was killed under it
                }
            });
            return follower;
        }

        /** What it saw before its connection ended (waits for the end). */
        List<JsonNode> cut() throws InterruptedException {
            if (!thread.join(Duration.ofSeconds(30))) throw new AssertionError("a stream outlived its server");
            return List.copyOf(seen);
        }
    }

    /** Waits until every run is in its state: the moment to kill. */
    void awaitStates(Caduceus node) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (var run : states.entrySet()) {
            var tag = tags.get(run.getKey());
            while (!inState(node, run.getKey(), run.getValue(), tag)) {
                if (System.nanoTime() > deadline)
                    throw new AssertionError("run " + run.getKey() + " (" + tag + ") never reached " + run.getValue() + ": "
                            + status(node, run.getKey()));
                TimeUnit.MILLISECONDS.sleep(20); // polling the server and the workspace, bounded by the deadline
            }
        }
        for (var response : responses.entrySet()) {
            var tag = responseTags.get(response.getKey());
            while (!inState(node, response.getKey(), response.getValue(), tag)) {
                if (System.nanoTime() > deadline)
                    throw new AssertionError("background response " + response.getKey() + " (" + tag + ") never reached "
                            + response.getValue());
                TimeUnit.MILLISECONDS.sleep(20); // polling the upstream's calls and the workspace, bounded by the deadline
            }
        }
    }

    private boolean inState(Caduceus node, String id, State state, String tag) throws Exception {
        int made = calls.getOrDefault(tag, new AtomicInteger()).get();
        return switch (state) {
            case MODEL -> made >= 1;
            case TOOL -> lines(tag) == 1;
            case APPROVAL -> "waiting_for_approval".equals(status(node, id).path("status").asText());
            case BETWEEN -> lines(tag) == 1 && made >= 2;
        };
    }

    /** Notes the time of the kill: call just before it. */
    void killing() {
        killedAtMillis = System.currentTimeMillis();
    }

    /** Says the node is gone: from now on the model answers the calls (the ones made again). Call once it has died. */
    void dead() {
        killed.set(true);
    }

    /**
     * After the kill: answers the approvals asked again (through {@code any} node), waits for every run to complete,
     * and checks each one. Returns the seconds from the kill to each run's {@code run.resumed}, in run order.
     */
    List<Double> verify(List<Caduceus> nodes) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        var pending = new ArrayList<>(states.keySet());
        int turn = 0;
        while (!pending.isEmpty()) {
            if (System.nanoTime() > deadline)
                throw new AssertionError(pending.size() + " run(s) never completed, e.g. " + pending.getFirst() + ": "
                        + status(nodes.getFirst(), pending.getFirst()));
            var node = nodes.get(turn++ % nodes.size());
            for (var it = pending.iterator(); it.hasNext(); ) {
                var id = it.next();
                var view = status(node, id);
                var status = view.path("status").asText();
                if (status.equals("completed")) {
                    it.remove();
                } else if (status.equals("waiting_for_approval") && view.has("resumed_node")) { // asked again, not the dead node's
                    var r = node.send("POST", "/v1/runs/" + id + "/approval", "{\"choice\":\"once\"}", Caduceus.KEY_AUTH);
                    assertTrue(r.statusCode() == 200 || r.statusCode() == 409, r.body()); // 409: answered meanwhile
                } else {
                    assertTrue(LIVE.contains(status),
                            "run " + id + " (" + tags.get(id) + ") ended " + status + ": " + status(node, id));
                }
            }
            TimeUnit.MILLISECONDS.sleep(50); // polling the runs' status, bounded by the deadline
        }
        var seconds = new ArrayList<Double>();
        for (var run : states.entrySet()) seconds.add(check(nodes.get(0), run.getKey(), run.getValue(), tags.get(run.getKey())));
        for (var job : jobs.entrySet()) {
            var node = nodes.getFirst();
            var history = JSON.readTree(node.get("/api/jobs/" + job.getValue() + "/runs", Caduceus.KEY_AUTH).body()).path("runs");
            assertEquals(1, history.size(), "the job fired once: " + history);
            assertEquals(job.getKey(), history.get(0).path("run_id").asText());
            long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            JsonNode state;
            while (!"ok".equals((state = JSON.readTree(node.get("/api/jobs/" + job.getValue(), Caduceus.KEY_AUTH).body())
                    .path("job")).path("last_status").asText())) {
                if (System.nanoTime() > settle) throw new AssertionError("the job never settled ok: " + state);
                TimeUnit.MILLISECONDS.sleep(50); // the scheduler settles ended runs on its tick
            }
        }
        return seconds;
    }

    private static final java.util.Set<String> LIVE = java.util.Set.of("queued", "running", "waiting_for_approval");

    /**
     * After the kill and the restart: waits for every background response to complete on {@code node} and checks it
     * as {@link #verify} checks a run: the answer, the marker, and its stream, which its client (cut by the kill)
     * resumes right after the last event it saw, and which is one gap-free sequence without duplicates.
     */
    void verifyBackground(Caduceus node) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        for (var response : responses.entrySet()) {
            var id = response.getKey();
            var tag = responseTags.get(id);
            JsonNode stored;
            while (!(stored = JSON.readTree(node.get("/v1/responses/" + id, Caduceus.KEY_AUTH).body()))
                    .path("status").asText().equals("completed")) {
                assertTrue(Set.of("queued", "in_progress").contains(stored.path("status").asText()),
                        "background response " + id + " (" + tag + ") ended: " + stored);
                if (System.nanoTime() > deadline) throw new AssertionError("background response " + id + " never completed: " + stored);
                TimeUnit.MILLISECONDS.sleep(50); // polling the response, bounded by the deadline
            }
            var output = stored.path("output");
            var text = output.get(output.size() - 1).path("content").path(0).path("text").asText();
            switch (response.getValue()) {
                case MODEL -> assertEquals("answered " + tag, text, stored.toString());
                case TOOL -> assertTrue(text.contains("its effects are unknown"), "the model is told the call was interrupted: " + text);
                case BETWEEN -> assertTrue(text.contains("step one"), "the finished step's result: " + text);
                case APPROVAL -> throw new AssertionError("no such background case");
            }
            if (response.getValue() != State.MODEL) assertEquals(1, lines(tag), "the command of " + tag + " ran exactly once");
            var seen = followers.get(id).cut();
            assertTrue(!seen.isEmpty(), "its client saw the start of " + id);
            long last = seen.getLast().path("sequence_number").asLong();
            List<JsonNode> rest;
            try (var sub = SseReader.open(HTTP, node.awaitListening().resolve("/v1/responses/" + id
                    + "?stream=true&starting_after=" + last), Caduceus.KEY_AUTH)) {
                rest = sub.rest().stream().map(SseReader.Frame::data).toList();
            }
            var all = new ArrayList<>(seen);
            all.addAll(rest);
            assertEquals(LongStream.range(0, all.size()).boxed().toList(),
                    all.stream().map(f -> f.path("sequence_number").asLong()).toList(),
                    "what its client saw, then the rest: one gap-free sequence without duplicates: " + id);
            assertEquals("response.completed", all.getLast().path("type").asText());
            assertEquals(1, all.stream().filter(f -> f.path("type").asText().equals("response.created")).count());
            var runs = JSON.readTree(node.get("/v1/runs?origin=response:" + id, Caduceus.KEY_AUTH).body()).path("data");
            assertEquals(1, runs.size(), "its run, listed under its origin: " + runs);
            assertEquals(1, runs.get(0).path("resumes").asInt(), runs.toString());
        }
    }

    /** How many background responses were started. */
    int backgroundResponses() {
        return responses.size();
    }

    private double check(Caduceus node, String id, State state, String tag) throws Exception {
        var status = status(node, id);
        assertEquals(1, status.path("resumes").asInt(), status.toString());
        var output = status.path("output").asText();
        switch (state) {
            case MODEL -> assertEquals("answered " + tag, output);
            case TOOL -> assertTrue(output.contains("its effects are unknown"), "the model is told the call was interrupted: " + output);
            case APPROVAL -> assertTrue(output.startsWith("Tool result: "), output);
            case BETWEEN -> assertTrue(output.contains("step one"), "the finished step's result: " + output);
        }
        if (state != State.MODEL) assertEquals(1, lines(tag), "the command of " + tag + " ran exactly once");
        List<SseReader.Frame> frames;
        try (var sub = SseReader.open(HTTP, node.awaitListening().resolve("/v1/runs/" + id + "/events"), Caduceus.KEY_AUTH)) {
            frames = sub.rest();
        }
        assertEquals(LongStream.rangeClosed(1, frames.size()).boxed().toList(), frames.stream().map(SseReader.Frame::id).toList(),
                "one gap-free sequence without duplicates: " + id);
        var resumed = frames.stream().filter(f -> f.data().path("event").asText().equals("run.resumed")).toList();
        assertEquals(1, resumed.size(), id);
        assertEquals(status.path("resumed_node").asText(), resumed.getFirst().data().path("node").asText());
        resumedBy.add(status.path("resumed_node").asText());
        assertEquals("run.completed", frames.getLast().data().path("event").asText());
        return resumed.getFirst().data().path("timestamp").asDouble() - killedAtMillis / 1000.0;
    }

    /** The times {@code tag}'s command ran, on any node. */
    /** The nodes that resumed the runs (after {@link #verify}). */
    java.util.Set<String> resumedBy() {
        return java.util.Set.copyOf(resumedBy);
    }

    private int lines(String tag) throws Exception {
        int n = 0;
        for (var workspace : workspaces) {
            var file = workspace.resolve(marker(tag));
            if (Files.exists(file)) n += Files.readAllLines(file).size();
        }
        return n;
    }

    private static JsonNode status(Caduceus node, String id) throws Exception {
        return JSON.readTree(node.get("/v1/runs/" + id, Caduceus.KEY_AUTH).body());
    }

    /** "median m s, max n s over k runs". */
    static String summary(List<Double> seconds) {
        var sorted = seconds.stream().sorted().toList();
        return String.format(java.util.Locale.ROOT, "median %.2f s, max %.2f s over %d runs", sorted.get(sorted.size() / 2),
                sorted.getLast(), sorted.size());
    }
}
