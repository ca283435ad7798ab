package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator console in a real browser: the assembled server with a scripted upstream, and per
 * scenario one run of {@code src/test/node/console/console.mjs} driving headless Chromium (Debian's
 * {@code /usr/bin/chromium}) through {@code playwright-core}. The script fails on a step that does
 * not happen, any browser console error, a CSP violation or an HTTP error the scenario does not
 * expect; here every request the page made is checked against the public API's route table
 * ({@link #PUBLIC_API}, as docs/api.md lists it: no console-only backdoor) and the server's output
 * against the key. Screenshots: {@code target/console-screenshots/<scenario>.png}.
 */
class ConsoleIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Path SHOTS = Path.of("target/console-screenshots");
    /** Every route the console may call: the public API of docs/api.md, and its own static files. */
    static final List<String> PUBLIC_API = List.of(
            "GET /console", "GET /console/", "GET /console/{file}",
            "GET /health/detailed", "GET /metrics", "GET /api/usage",
            "GET /v1/models", "GET /v1/toolsets", "GET /v1/capabilities",
            "POST /v1/chat/completions",
            "GET /v1/responses", "GET /v1/responses/{id}", "DELETE /v1/responses/{id}", "GET /v1/responses/{id}/input_items",
            "POST /v1/responses/{id}/cancel", "DELETE /v1/conversations/{id}",
            "GET /api/conversations", "DELETE /api/conversations/{name}",
            "POST /v1/runs", "GET /v1/runs", "GET /v1/runs/{id}", "GET /v1/runs/{id}/events",
            "POST /v1/runs/{id}/approval", "POST /v1/runs/{id}/steer", "POST /v1/runs/{id}/stop",
            "GET /v1/runs/{id}/artifacts", "GET /v1/files/{id}/content",
            "GET /api/jobs", "POST /api/jobs", "POST /api/jobs/preview", "GET /api/jobs/{id}", "PATCH /api/jobs/{id}",
            "DELETE /api/jobs/{id}", "POST /api/jobs/{id}/pause", "POST /api/jobs/{id}/resume",
            "POST /api/jobs/{id}/run", "GET /api/jobs/{id}/runs",
            "GET /api/webhooks/deliveries", "POST /api/webhooks/deliveries/{id}/redeliver");

    @TempDir static Path home;
    static ScriptedUpstream upstream;
    static Caduceus server;
    static URI base;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__WEBHOOKS__SECRET", WebhooksIT.SECRET);
        env.put("CADUCEUS__WEBHOOKS__ALLOW_PRIVATE_HOSTS", "127.0.0.1");
        env.put("CADUCEUS__AGENT__TOOLSETS", "hermes-api-server,files");
        server = Caduceus.serve(home, env);
        base = server.awaitListening();
        Files.createDirectories(SHOTS);
        NodeConsole.script();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    @BeforeEach
    void unscriptedTurnsAnswerOk() {
        upstream.clearQueue();
        upstream.setDefault(Turn.text("ok"));
    }

    // ---- the scenarios --------------------------------------------------------------------------

    @Test
    void signInWithABadKeyThenTheGoodOneKeepingTheKeyOutOfStorageUrlsAndLogs() throws Exception {
        var result = browse("sign-in", Map.of());
        var first = result.path("firstLoad");
        System.out.printf("Console page weight: first load (sign-in page) %,d bytes in %d requests; "
                        + "after sign-in (the overview's modules and its API calls) %,d bytes in %d requests%n",
                first.path("bytes").asLong(), first.path("requests").asInt(),
                result.path("afterSignIn").path("bytes").asLong(), result.path("afterSignIn").path("requests").asInt());
        assertTrue(first.path("bytes").asLong() > 0, result.toString());
        for (var request : result.path("requests"))
            assertFalse(request.path("url").asText().contains(Caduceus.TEST_KEY), "the key is in a URL: " + request);
        assertTrue(result.path("requests").toString().contains("/health/detailed"), "the sign-in check is an API call");
    }

    @Test
    void aRunWaitsForApprovalLiveAndIsApprovedInThePage() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_a", "terminal",
                "{\"command\":\"mkdir -p build-console && rm -rf build-console && echo removed\"}")));
        upstream.enqueue(Turn::quotingLastToolResult);
        var result = browse("approval", Map.of());
        var runId = result.path("runId").asText();
        var run = json(server.get("/v1/runs/" + runId, Caduceus.KEY_AUTH).body());
        assertEquals("completed", run.path("status").asText(), run.toString());
        assertTrue(run.path("output").asText().contains("approved once by the user"), run.toString());
    }

    @Test
    void oneRunIsSteeredAndAnotherStoppedAndOneWaitingForItsCallerStoppedFromThePage() throws Exception {
        var held = new HeldTurn(Turn.toolCalls(Turn.ToolCall.of("call_s", "terminal", "{\"command\":\"echo step one\"}")));
        upstream.enqueue(held);
        var steered = submit("work on it");
        held.awaitArrival();
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_b", "terminal", "{\"command\":\"sleep 60\"}")));
        var stopped = submit("sleep for a minute");
        Eventually.await(Duration.ofSeconds(20), "the second run's tool runs",
                () -> "tool.started".equals(status(stopped).path("last_event").asText()));
        // Issue 42: a third run waits for its caller's own tool outputs; the page shows the call and stops it.
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("up_w", "get_weather", "{\"city\":\"Oslo\"}")));
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        var created = server.send("POST", "/v1/runs", "{\"input\":\"weather?\",\"tools\":[{\"type\":\"function\","
                + "\"function\":{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\"}}}]}", headers);
        assertEquals(202, created.statusCode(), created.body());
        var waiting = json(created.body()).path("run_id").asText();
        Eventually.await(Duration.ofSeconds(20), "the third run waits for its caller",
                () -> "requires_action".equals(status(waiting).path("status").asText()));
        upstream.enqueue(body -> Turn.text("saw: " + body.path("messages").get(body.path("messages").size() - 1)
                .path("content").asText()));

        var browsing = browseAsync("steer-and-stop", Map.of("STEER_RUN", steered, "STOP_RUN", stopped, "WAITING_RUN", waiting));
        try {
            Eventually.await(Duration.ofSeconds(60), "the page steered the first run",
                    () -> browsing.isDone() || "run.steered".equals(status(steered).path("last_event").asText()));
        } finally {
            held.release(); // the model call the guidance waits behind
        }
        finish(browsing);
        assertEquals("completed", status(steered).path("status").asText());
        assertEquals("saw: also check the logs", status(steered).path("output").asText());
        assertEquals("cancelled", status(stopped).path("status").asText());
        assertEquals("cancelled", status(waiting).path("status").asText());
    }

    @Test
    void aJobWithAnInvalidThenAValidScheduleRunsNowAndShowsItsHistory() throws Exception {
        upstream.setDefault(Turn.text("Report ready."));
        browse("job", Map.of());
        var jobs = json(server.get("/api/jobs?include_disabled=true", Caduceus.KEY_AUTH).body()).path("jobs");
        JsonNode job = null;
        for (var j : jobs) if (j.path("name").asText().equals("Nightly report")) job = j;
        if (job == null) fail("the page created no job: " + jobs);
        assertEquals("every 30m", job.path("schedule").path("display").asText(), job.toString());
        assertEquals("Write the nightly report", job.path("prompt").asText());
        var history = json(server.get("/api/jobs/" + job.path("id").asText() + "/runs", Caduceus.KEY_AUTH).body());
        assertEquals("manual", history.path("runs").get(0).path("trigger").asText(), history.toString());
    }

    @Test
    void aConversationChainOfTwoResponsesReadsAsATranscriptAndIsDeleted() throws Exception {
        upstream.enqueue(Turn.text("Nice to meet you, Ana."));
        respond("{\"input\":\"My name is Ana.\",\"conversation\":\"intro\"}");
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_n", "terminal", "{\"command\":\"echo Ana from the tool\"}")),
                Turn.text("Your name is Ana."));
        respond("{\"input\":\"What is my name?\",\"conversation\":\"intro\"}");
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        var conversation = json(server.send("POST", "/v1/conversations", "{\"metadata\":{\"topic\":\"console\"}}",
                headers).body()).path("id").asText();
        var held = new dev.caduceus.platform.testkit.HeldTurn(Turn.text("never shown"));
        upstream.enqueue(held);
        try {
            var background = json(server.send("POST", "/v1/responses", "{\"input\":\"long work\",\"background\":true}",
                    headers).body()).path("id").asText();
            held.awaitArrival(); // in progress: the list offers to cancel it
            browse("conversation", Map.of("CONV_ID", conversation, "BACKGROUND_ID", background));
            assertEquals("cancelled", json(server.get("/v1/responses/" + background, Caduceus.KEY_AUTH).body())
                    .path("status").asText());
        } finally {
            held.release();
        }
        var left = json(server.get("/api/conversations", Caduceus.KEY_AUTH).body());
        assertEquals(0, left.path("conversations").size(), left.toString());
        assertEquals(0, left.path("conversation_objects").size(), left.toString());
    }

    @Test
    void aFailedWebhookDeliveryIsListedAndSentAgainFromThePage() throws Exception {
        try (var receiver = WebhookReceiver.start(WebhooksIT.SECRET)) {
            var headers = new HashMap<>(Caduceus.KEY_AUTH);
            headers.put("Content-Type", "application/json");
            var started = server.send("POST", "/v1/runs", "{\"input\":\"work\",\"webhook\":\"" + receiver.url("/status/400")
                    + "\"}", headers);
            assertEquals(202, started.statusCode(), started.body());
            var first = receiver.next(java.time.Duration.ofSeconds(60));
            assertEquals(400, first.path("status").asInt(), first.toString());
            var delivery = dev.caduceus.platform.testkit.Eventually.await(java.time.Duration.ofSeconds(30), "failed",
                    () -> json(server.get("/api/webhooks/deliveries?status=failed", Caduceus.KEY_AUTH).body()).path("data"),
                    d -> d.size() == 1).get(0);
            browse("webhooks", Map.of("WEBHOOK_ID", delivery.path("webhook_id").asText(),
                    "DELIVERY_ID", delivery.path("id").asText()));
            var again = receiver.next(java.time.Duration.ofSeconds(60));
            assertEquals(first.path("id").asText(), again.path("id").asText(), "the same webhook-id");
        }
    }

    @Test
    void aFileTheAgentDeliveredIsListedOnItsRunAndDownloaded() throws Exception {
        var outputs = Files.createDirectories(Caduceus.defaultWorkspace(home).resolve("outputs"));
        Files.writeString(outputs.resolve("report.csv"), "city,temp\nOslo,3\n");
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_f", "deliver_file", "{\"path\":\"outputs/report.csv\"}")),
                Turn.text("Delivered."));
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        var started = server.send("POST", "/v1/runs", "{\"input\":\"report please\"}", headers);
        assertEquals(202, started.statusCode(), started.body());
        var run = json(started.body()).path("run_id").asText();
        dev.caduceus.platform.testkit.Eventually.await(java.time.Duration.ofSeconds(30), "the run ended",
                () -> json(server.get("/v1/runs/" + run, Caduceus.KEY_AUTH).body()).path("status").asText(),
                status -> status.equals("completed"));
        var result = browse("files", Map.of("RUN_ID", run, "FILENAME", "report.csv"));
        assertEquals("report.csv", result.path("filename").asText(), result.toString());
        assertEquals("city,temp\nOslo,3\n", result.path("content").asText());
    }

    @Test
    void aPlaygroundChatCallsAToolWithItsProgressVisible() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_c", "terminal", "{\"command\":\"sleep 1; echo hello\"}")),
                Turn.text("The tool said hello."));
        browse("chat", Map.of());
        var sent = upstream.chatRequests().getLast().body().path("messages").toString();
        assertTrue(sent.contains("Run the tool please"), sent);
    }

    // ---- helpers -----------------------------------------------------------------------------

    private static JsonNode browse(String scenario, Map<String, String> env) throws Exception {
        return finish(browseAsync(scenario, env));
    }

    /** The scenario's result, or its failure as this test's (not wrapped in an ExecutionException). */
    private static JsonNode finish(CompletableFuture<JsonNode> browsing) throws Exception {
        try {
            return browsing.get(200, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) throw error; // an assertion of the scenario
            throw e;
        }
    }

    /** Runs the scenario in the background; the future fails like the test should. */
    private static CompletableFuture<JsonNode> browseAsync(String scenario, Map<String, String> env) throws Exception {
        var script = NodeConsole.script();
        var builder = new ProcessBuilder("node", script.toString(), scenario).directory(script.getParent().toFile())
                .redirectErrorStream(true);
        builder.environment().put("BASE_URL", base.toString().replaceAll("/$", ""));
        builder.environment().put("API_KEY", Caduceus.TEST_KEY);
        builder.environment().put("SHOTS", SHOTS.toAbsolutePath().toString());
        builder.environment().put("CHROMIUM", NodeConsole.CHROMIUM.toString());
        builder.environment().put("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
        builder.environment().putAll(env);
        var process = builder.start();
        var output = new StringBuilder();
        var reader = Thread.ofVirtual().start(() -> {
            try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) synchronized (output) { output.append(line).append('\n'); }
            } catch (java.io.IOException ignored) {
                // the process ended
            }
        });
        return CompletableFuture.supplyAsync(() -> {
            try {
                if (!process.waitFor(180, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    fail(scenario + ": the browser script did not finish\n" + output);
                }
                reader.join(5_000);
                String text;
                synchronized (output) { text = output.toString(); }
                var last = text.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElse("{}");
                var result = JSON.readTree(last);
                if (process.exitValue() != 0 || !result.path("ok").asBoolean())
                    fail(scenario + " failed in the browser: " + result.path("error").asText(text)
                            + "\npage:\n" + result.path("page").asText() + "\nserver log:\n" + server.stdout() + server.stderr());
                for (var shot : result.path("shots"))
                    System.out.println("Console screenshot: " + SHOTS.resolve(shot.asText()));
                assertOnlyPublicApi(scenario, result.path("requests"));
                assertKeyNeverLogged();
                return result;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(scenario + " interrupted", e);
            } catch (java.io.IOException e) {
                throw new IllegalStateException(scenario + ": unreadable result", e);
            }
        });
    }

    /** Every request the page made is a route of the public API (method and template). */
    private static void assertOnlyPublicApi(String scenario, JsonNode requests) {
        var templates = PUBLIC_API.stream().map(ConsoleIT::pattern).toList();
        var seen = new ArrayList<String>();
        for (var request : requests) {
            var uri = URI.create(request.path("url").asText());
            if ("data".equals(uri.getScheme())) continue; // the empty favicon, inline in the page
            assertEquals(base.getAuthority(), uri.getAuthority(), scenario + ": a request left the server: " + uri);
            var call = request.path("method").asText() + " " + uri.getRawPath();
            assertTrue(templates.stream().anyMatch(t -> t.matcher(call).matches()),
                    scenario + ": " + call + " is not a route of the public API");
            seen.add(call);
        }
        assertFalse(seen.isEmpty(), scenario + ": the page made no request");
    }

    private static Pattern pattern(String route) {
        return Pattern.compile(Pattern.quote(route).replaceAll("\\{[a-z_]+}", "\\\\E[^/]+\\\\Q"));
    }

    private static void assertKeyNeverLogged() {
        var log = server.stdout() + "\n" + server.stderr();
        assertFalse(log.contains(Caduceus.TEST_KEY), "the server's output contains the key");
    }

    private static String submit(String input) throws Exception {
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        var response = server.send("POST", "/v1/runs", JSON.createObjectNode().put("input", input).toString(), headers);
        assertEquals(202, response.statusCode(), response.body());
        return json(response.body()).path("run_id").asText();
    }

    private static void respond(String body) throws Exception {
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        var response = server.send("POST", "/v1/responses", body, headers);
        assertEquals(200, response.statusCode(), response.body());
        assertEquals("completed", json(response.body()).path("status").asText(), response.body());
    }

    private static JsonNode status(String runId) throws Exception {
        return json(server.get("/v1/runs/" + runId, Caduceus.KEY_AUTH).body());
    }

    private static JsonNode json(String body) throws Exception {
        return JSON.readTree(body);
    }
}
