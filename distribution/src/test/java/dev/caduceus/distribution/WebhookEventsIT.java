package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The webhooks of runs, jobs and background responses, from the assembled server to a receiver that verifies each with the npm Standard
 * Webhooks library ({@link WebhookReceiver}): a run's own webhook and a configured endpoint hear of its end;
 * webhooks naming private, loopback, link-local or metadata hosts (also by a name that resolves to loopback)
 * are refused with 400 before a run starts; a receiver that fails is tried again with the same
 * {@code webhook-id}; and deliveries pending when the server is killed with {@code kill -9} all arrive after
 * it starts again.
 */
@Timeout(300)
class WebhookEventsIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String SECRET = WebhooksIT.SECRET;

    @TempDir Path home;
    ScriptedUpstream upstream;

    @BeforeEach
    void upstream() {
        upstream = ScriptedUpstream.start();
        upstream.setDefault(Turn.text("Done.").usage(3, 2));
    }

    @AfterEach
    void stop() {
        upstream.close();
    }

    Caduceus serve(String endpoints) throws Exception {
        Files.writeString(home.resolve("config.yaml"), "webhooks:\n  secret: " + SECRET + "\n"
                + "  allow_private_hosts: [127.0.0.1]\n  retry: {initial: 1s, max: 2s, for: 1h}\n" + endpoints);
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0");
        return Caduceus.serve(home, env);
    }

    static String startRun(Caduceus server, String webhook) throws Exception {
        var response = post(server, "{\"input\":\"work\",\"webhook\":" + webhook + "}");
        assertEquals(202, response.statusCode(), response.body());
        return JSON.readTree(response.body()).path("run_id").asText();
    }

    static java.net.http.HttpResponse<String> post(Caduceus server, String body) throws Exception {
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        return server.send("POST", "/v1/runs", body, headers);
    }

    @Test
    void aRunsWebhookAndAConfiguredEndpointHearOfItsEndSignedTheStandardWay() throws Exception {
        upstream.enqueue(Turn.text("Hello from the run").usage(5, 4));
        try (var receiver = WebhookReceiver.start(SECRET);
             var server = serve("  endpoints:\n    - url: " + receiver.url("/endpoint") + "\n      allow_private: true\n"
                     + "      events: [run.completed]\n")) {
            var id = startRun(server, "{\"url\":\"" + receiver.url("/hook") + "\",\"events\":[\"run.completed\",\"run.failed\"]}");
            var seen = new HashMap<String, JsonNode>();
            for (int i = 0; i < 2; i++) {
                var line = receiver.next(Duration.ofSeconds(60));
                seen.put(line.path("path").asText(), line);
            }
            assertEquals(Set.of("/hook", "/endpoint"), seen.keySet());
            for (var line : seen.values()) {
                assertTrue(line.path("verified").asBoolean(), line.toString());
                assertEquals("run.completed", line.path("type").asText());
                var data = line.path("payload").path("data");
                assertEquals(id, data.path("run_id").asText());
                assertEquals("completed", data.path("status").asText());
                assertEquals("Hello from the run", data.path("output_preview").asText());
                assertEquals(9, data.path("usage").path("total_tokens").asInt(), data.toString());
            }
            assertEquals(seen.get("/hook").path("id"), seen.get("/endpoint").path("id"), "one event, one webhook-id");
        }
    }

    /**
     * A Hermes user's {@code hooks.outbound} entry, its secret from the environment by {@code ${VAR}}: the run's
     * end reaches it signed Hermes' way ({@code X-Hermes-Signature-256}, checked as a Hermes receiver checks it)
     * and the Standard Webhooks way with the same secret, {@code X-Hermes-Event} naming the event.
     */
    @Test
    void aHermesOutboundHookHearsOfARunsEndSignedAsHermesSignsIt() throws Exception {
        var plain = "hermes-hook-secret-" + java.util.UUID.randomUUID();
        try (var receiver = WebhookReceiver.start(SECRET, null, plain)) {
            Files.writeString(home.resolve("config.yaml"), "hooks:\n  outbound:\n    - url: " + receiver.url("/hermes")
                    + "\n      events: [on_session_end]\n      secret: ${HOOK_SECRET}\n      allow_private: true\n");
            var env = Caduceus.upstreamEnv(upstream);
            env.put("HOOK_SECRET", plain);
            try (var server = Caduceus.serve(home, env)) {
                var id = startRun(server, "null");
                var line = receiver.next(Duration.ofSeconds(60));
                assertTrue(line.path("hermes_verified").asBoolean(), line.toString());
                assertTrue(line.path("verified").asBoolean(), line.toString());
                assertEquals("run.completed", line.path("hermes_event").asText());
                assertEquals(line.path("id").asText(), line.path("hermes_delivery").asText());
                assertEquals(id, line.path("payload").path("data").path("run_id").asText());
            }
        }
    }

    /**
     * A run that waits for an approval says so with the routes that answer it; denied, it goes on and its end
     * follows. The deliveries count in {@code /metrics}.
     */
    @Test
    void anApprovalIsAnnouncedWithTheRoutesThatAnswerIt() throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_rm", "terminal",
                "{\"command\":\"mkdir -p hook-victim && rm -rf hook-victim && echo removed\"}")));
        upstream.enqueue(Turn.text("Left it alone."));
        try (var receiver = WebhookReceiver.start(SECRET); var server = serve("")) {
            var id = startRun(server, "{\"url\":\"" + receiver.url("/hook") + "\",\"events\":[\"approval.requested\","
                    + "\"run.completed\"]}");
            var asked = receiver.next(Duration.ofSeconds(60));
            assertTrue(asked.path("verified").asBoolean(), asked.toString());
            assertEquals("approval.requested", asked.path("type").asText());
            var data = asked.path("payload").path("data");
            assertEquals(id, data.path("run_id").asText());
            assertTrue(data.path("approval").path("command_preview").asText().contains("rm -rf hook-victim"), data.toString());
            assertEquals("POST /v1/runs/" + id + "/approval {\"choice\":\"deny\"}", data.path("routes").path("deny").asText());
            var headers = new HashMap<>(Caduceus.KEY_AUTH);
            headers.put("Content-Type", "application/json");
            var denied = server.send("POST", "/v1/runs/" + id + "/approval", "{\"choice\":\"deny\"}", headers);
            assertEquals(200, denied.statusCode(), denied.body());
            var done = receiver.next(Duration.ofSeconds(60));
            assertEquals("run.completed", done.path("type").asText(), done.toString());
            assertEquals("Left it alone.", done.path("payload").path("data").path("output_preview").asText());
            var metrics = server.get("/metrics", Caduceus.KEY_AUTH).body();
            assertTrue(metrics.contains("caduceus_webhook_deliveries_total{result=\"delivered\"} 2.0"), metrics);
            assertTrue(metrics.contains("caduceus_webhook_queue_depth"), metrics);
        }
    }

    @Test
    void webhooksToPrivateLoopbackLinkLocalOrMetadataHostsAreRefusedBeforeARunStarts() throws Exception {
        try (var server = serve("")) {
            for (var url : List.of("http://localhost:9/x", "http://10.1.2.3/x", "http://169.254.169.254/latest/meta-data/",
                    "http://[::1]:9/x", "http://127.0.0.2:9/x", "http://[fd00::1]/x")) {
                var response = post(server, "{\"input\":\"work\",\"webhook\":\"" + url + "\"}");
                assertEquals(400, response.statusCode(), url + ": " + response.body());
                var error = JSON.readTree(response.body()).path("error");
                assertEquals("webhook_not_allowed", error.path("code").asText(), response.body());
                assertEquals("webhook", error.path("param").asText(), response.body());
            }
            for (var webhook : List.of("42", "{\"url\":\"ftp://example.com/x\"}", "{\"events\":[\"run.completed\"]}",
                    "{\"url\":\"https://example.com/x\",\"events\":[\"run.finished\"]}",
                    "{\"url\":\"https://example.com/x\",\"secret\":\"mine\"}")) {
                var response = post(server, "{\"input\":\"work\",\"webhook\":" + webhook + "}");
                assertEquals(400, response.statusCode(), webhook + ": " + response.body());
                assertEquals("invalid_webhook", JSON.readTree(response.body()).path("error").path("code").asText());
            }
            var runs = JSON.readTree(server.get("/v1/runs", Caduceus.KEY_AUTH).body());
            assertEquals(0, runs.path("data").size(), "no run started: " + runs);
        }
    }

    @Test
    void aFailingReceiverIsTriedAgainWithTheSameWebhookIdHonouringRetryAfter() throws Exception {
        try (var receiver = WebhookReceiver.start(SECRET); var server = serve("")) {
            startRun(server, "\"" + receiver.url("/fail-first/2/503") + "\"");
            var attempts = new ArrayList<JsonNode>();
            for (int i = 0; i < 3; i++) attempts.add(receiver.next(Duration.ofSeconds(60)));
            assertEquals(List.of(503, 503, 204), attempts.stream().map(a -> a.path("status").asInt()).toList());
            assertEquals(1, attempts.stream().map(a -> a.path("id").asText()).distinct().count(), "the same webhook-id");
            assertTrue(attempts.stream().allMatch(a -> a.path("verified").asBoolean()), attempts.toString());

            startRun(server, "\"" + receiver.url("/fail-first/1/429") + "\"");
            assertEquals(429, receiver.next(Duration.ofSeconds(60)).path("status").asInt());
            assertEquals(204, receiver.next(Duration.ofSeconds(60)).path("status").asInt(), "tried again after Retry-After: 1");
        }
    }

    /**
     * {@code /api/webhooks/deliveries}: a 400 answer is not tried again (the delivery is failed after one
     * attempt, with the receiver's status and answer); a delivered one can be sent again with its webhook-id;
     * a named key sees only the deliveries of its own runs, the admin key all; bad parameters are 400s and
     * unknown ids 404s.
     */
    @Test
    void theDeliveriesApiShowsEachKeyItsDeliveriesAndRedeliversOne() throws Exception {
        try (var receiver = WebhookReceiver.start(SECRET); var server = serve("")) {
            var rejected = startRun(server, "\"" + receiver.url("/status/400") + "\"");
            assertEquals(400, receiver.next(Duration.ofSeconds(60)).path("status").asInt());
            var failed = dev.caduceus.platform.testkit.Eventually.await(Duration.ofSeconds(30), "the delivery failed",
                    () -> deliveries(server, Caduceus.KEY_AUTH, "?status=failed").path("data"), d -> d.size() == 1).get(0);
            assertEquals(1, failed.path("attempts").asInt(), failed.toString());
            assertEquals(400, failed.path("last_status").asInt(), failed.toString());
            assertTrue(failed.path("last_error").asText().startsWith("HTTP 400"), failed.toString());
            assertTrue(failed.path("next_attempt_at").isNull(), "never tried again: " + failed);
            assertEquals("run.completed", failed.path("event_type").asText());

            var named = Caduceus.addNamedKey(home, "hooks-user", "--webhook", receiver.url("/key")); // all its events
            var namedAuth = Map.of("Authorization", "Bearer " + named);
            var headers = new HashMap<>(namedAuth);
            headers.put("Content-Type", "application/json");
            var own = server.send("POST", "/v1/runs", "{\"input\":\"mine\",\"webhook\":\"" + receiver.url("/hook") + "\"}",
                    headers);
            assertEquals(202, own.statusCode(), own.body());
            var byPath = new HashMap<String, JsonNode>();
            for (int i = 0; i < 2; i++) {
                var line = receiver.next(Duration.ofSeconds(60));
                byPath.put(line.path("path").asText(), line);
            }
            assertEquals(Set.of("/hook", "/key"), byPath.keySet(), "the request's webhook and the key's");
            var sent = byPath.get("/hook");
            assertEquals(204, sent.path("status").asInt(), sent.toString());
            assertTrue(byPath.get("/key").path("verified").asBoolean(), byPath.toString());
            assertEquals(sent.path("id"), byPath.get("/key").path("id"), "one event");
            var mineBoth = dev.caduceus.platform.testkit.Eventually.await(Duration.ofSeconds(30), "the named key's deliveries",
                    () -> deliveries(server, namedAuth, "").path("data"),
                    d -> d.size() == 2 && d.get(0).path("status").asText().equals("delivered")
                            && d.get(1).path("status").asText().equals("delivered"));
            var mine = mineBoth.get(0).path("url").asText().endsWith("/hook") ? mineBoth.get(0) : mineBoth.get(1);
            assertEquals(sent.path("id").asText(), mine.path("webhook_id").asText());
            assertEquals(3, deliveries(server, Caduceus.KEY_AUTH, "").path("data").size(), "the admin key sees all three");
            assertEquals(404, server.get(WEBHOOK_DELIVERIES + "/" + failed.path("id").asText(), namedAuth).statusCode(),
                    "another key's delivery is not found");
            var one = JSON.readTree(server.get(WEBHOOK_DELIVERIES + "/" + mine.path("id").asText(), namedAuth).body());
            assertEquals(JSON.readTree(own.body()).path("run_id").asText(), one.path("payload").path("data").path("run_id").asText());

            var again = server.send("POST", WEBHOOK_DELIVERIES + "/" + mine.path("id").asText() + "/redeliver", "", namedAuth);
            assertEquals(200, again.statusCode(), again.body());
            var resent = receiver.next(Duration.ofSeconds(60));
            assertEquals(sent.path("id").asText(), resent.path("id").asText(), "the same webhook-id");
            assertTrue(resent.path("verified").asBoolean());

            for (var bad : List.of("?limit=0", "?limit=abc", "?status=lost", "?after=whd_nope"))
                assertEquals(400, server.get(WEBHOOK_DELIVERIES + bad, Caduceus.KEY_AUTH).statusCode(), bad);
            assertEquals(404, server.get(WEBHOOK_DELIVERIES + "/whd_nope", Caduceus.KEY_AUTH).statusCode());
            assertEquals(404, server.send("POST", WEBHOOK_DELIVERIES + "/whd_nope/redeliver", "", Caduceus.KEY_AUTH).statusCode());
            assertEquals(401, server.get(WEBHOOK_DELIVERIES, Map.of()).statusCode());
            assertEquals(401, server.get(WEBHOOK_DELIVERIES, Map.of("Authorization", "Bearer wrong-key-0123456789")).statusCode());
            var page = deliveries(server, Caduceus.KEY_AUTH, "?limit=2");
            assertTrue(page.path("has_more").asBoolean(), page.toString());
            var rest = deliveries(server, Caduceus.KEY_AUTH, "?limit=2&after=" + page.path("last_id").asText());
            assertEquals(1, rest.path("data").size(), rest.toString());
            assertFalse(rest.path("has_more").asBoolean(), rest.toString());
            assertEquals(failed.path("id").asText(), rest.path("data").get(0).path("id").asText(), "the older one next");
            assertEquals(rejected, JSON.readTree(server.get(WEBHOOK_DELIVERIES + "/" + failed.path("id").asText(),
                    Caduceus.KEY_AUTH).body()).path("payload").path("data").path("run_id").asText());
        }
    }

    /**
     * A job's webhook hears of each of its runs' ends ({@code job.run.completed}), and a background response's
     * of its end ({@code response.completed}); both refuse a private host with 400 before anything is kept, and
     * a webhook on a foreground response is a 400.
     */
    @Test
    void jobsAndBackgroundResponsesTellTheirWebhooks() throws Exception {
        try (var receiver = WebhookReceiver.start(SECRET); var server = serve("")) {
            var headers = new HashMap<>(Caduceus.KEY_AUTH);
            headers.put("Content-Type", "application/json");
            var refusedJob = server.send("POST", "/api/jobs", "{\"name\":\"j\",\"schedule\":\"every 1h\",\"prompt\":\"p\","
                    + "\"webhook\":\"http://10.1.2.3/x\"}", headers);
            assertEquals(400, refusedJob.statusCode(), refusedJob.body());
            assertTrue(refusedJob.body().contains("webhook_not_allowed"), refusedJob.body());
            var malformedJob = server.send("POST", "/api/jobs", "{\"name\":\"j\",\"schedule\":\"every 1h\",\"prompt\":\"p\","
                    + "\"webhook\":{\"url\":\"ftp://example.com/x\"}}", headers);
            assertEquals(400, malformedJob.statusCode(), malformedJob.body());
            assertTrue(malformedJob.body().contains("Invalid webhook"), malformedJob.body());
            var created = server.send("POST", "/api/jobs", "{\"name\":\"hooked\",\"schedule\":\"every 1h\",\"prompt\":\"p\","
                    + "\"webhook\":{\"url\":\"" + receiver.url("/job") + "\",\"events\":[\"job.run.completed\"]}}", headers);
            assertEquals(201, created.statusCode(), created.body());
            var job = JSON.readTree(created.body()).path("job");
            assertEquals(receiver.url("/job"), job.path("webhook").path("url").asText(), job.toString());
            var fired = server.send("POST", "/api/jobs/" + job.path("id").asText() + "/run", "", headers);
            assertEquals(200, fired.statusCode(), fired.body());
            var told = receiver.next(Duration.ofSeconds(60));
            assertTrue(told.path("verified").asBoolean(), told.toString());
            assertEquals("job.run.completed", told.path("type").asText());
            assertEquals(job.path("id").asText(), told.path("payload").path("data").path("job_id").asText());
            assertTrue(told.path("payload").path("data").path("run_id").asText().startsWith("run_"), told.toString());

            for (var body : List.of("{\"input\":\"x\",\"webhook\":\"" + receiver.url("/r") + "\"}",
                    "{\"input\":\"x\",\"background\":true,\"webhook\":{\"url\":\"https://example.com\",\"events\":[\"nope\"]}}")) {
                var response = server.send("POST", "/v1/responses", body, headers);
                assertEquals(400, response.statusCode(), response.body());
                assertEquals("invalid_webhook", JSON.readTree(response.body()).path("error").path("code").asText());
            }
            var refused = server.send("POST", "/v1/responses", "{\"input\":\"x\",\"background\":true,"
                    + "\"webhook\":\"http://[::1]:9/x\"}", headers);
            assertEquals(400, refused.statusCode(), refused.body());
            assertEquals("webhook_not_allowed", JSON.readTree(refused.body()).path("error").path("code").asText());
            upstream.enqueue(Turn.text("Background answer").usage(2, 2));
            var background = server.send("POST", "/v1/responses", "{\"input\":\"x\",\"background\":true,"
                    + "\"webhook\":\"" + receiver.url("/response") + "\"}", headers);
            assertEquals(200, background.statusCode(), background.body());
            var id = JSON.readTree(background.body()).path("id").asText();
            var ended = receiver.next(Duration.ofSeconds(60));
            assertTrue(ended.path("verified").asBoolean(), ended.toString());
            assertEquals("response.completed", ended.path("type").asText());
            var data = ended.path("payload").path("data");
            assertEquals(id, data.path("response_id").asText());
            assertEquals("Background answer", data.path("output_preview").asText());
        }
    }

    static final String WEBHOOK_DELIVERIES = "/api/webhooks/deliveries";

    static JsonNode deliveries(Caduceus server, Map<String, String> auth, String query) throws Exception {
        var response = server.get(WEBHOOK_DELIVERIES + query, auth);
        assertEquals(200, response.statusCode(), response.body());
        return JSON.readTree(response.body());
    }

    @Test
    void deliveriesPendingWhenTheServerIsKilledArriveAfterItStartsAgain() throws Exception {
        var gate = home.resolveSibling(home.getFileName() + "-gate");
        Files.deleteIfExists(gate);
        int runs = 100;
        try (var receiver = WebhookReceiver.start(SECRET, gate)) {
            var ids = new HashSet<String>();
            var first = serve("");
            try {
                for (int i = 0; i < runs; i++) ids.add(startRun(first, "\"" + receiver.url("/gated") + "\""));
                for (var id : ids)
                    dev.caduceus.platform.testkit.Eventually.await(Duration.ofSeconds(60), id + " ended",
                            () -> JSON.readTree(first.get("/v1/runs/" + id, Caduceus.KEY_AUTH).body()).path("status").asText(),
                            "completed"::equals);
                receiver.next(Duration.ofSeconds(60)); // at least one attempt was refused (503) before the kill
            } finally {
                first.process.destroyForcibly(); // kill -9 with the deliveries pending
                first.process.waitFor();
            }
            Files.writeString(gate, "open");
            try (var second = serve("")) {
                var delivered = new HashSet<String>();
                long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
                while (delivered.size() < runs && System.nanoTime() < deadline) {
                    var line = receiver.next(Duration.ofSeconds(60));
                    if (line.path("status").asInt() == 204 && line.path("verified").asBoolean())
                        delivered.add(line.path("payload").path("data").path("run_id").asText());
                }
                assertEquals(ids, delivered, "every run's run.completed reached the receiver after the restart");
            }
        } finally {
            Files.deleteIfExists(gate);
        }
    }
}
