package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Model routes on the real host, each deployment its own scripted upstream (a real HTTP server): a request's
 * {@code model} picks its route; a deployment that fails (500, 503, 429, 401, a refused connection, a timeout) before any
 * token is passed over for the next and cools down, and comes back when the cooldown ends; a stream cut after its
 * first token is never sent again; a context-length error falls back to the next route; weights share sequential
 * calls; a deployment's rpm cap holds; {@code /health/detailed} shows each deployment's state; mistakes in the
 * configuration stop the boot naming the key.
 */
@Timeout(120)
class ModelRoutesTest {
    static final String HI = "{\"model\":\"%s\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    final List<ScriptedUpstream> upstreams = new ArrayList<>();
    TestHost host;

    ScriptedUpstream upstream(Turn answer) {
        var upstream = ScriptedUpstream.start();
        upstream.setDefault(answer);
        upstreams.add(upstream);
        return upstream;
    }

    HostClient start(String yaml) {
        var primary = upstream(Turn.text("from the primary"));
        host = TestHost.builder().plugins("endpoint-chat", "endpoint-capabilities", "provider-openai").model(primary)
                .configYaml(yaml).start();
        return host.http();
    }

    @AfterEach
    void stop() {
        if (host != null) host.close();
        upstreams.forEach(ScriptedUpstream::close);
    }

    static String ask(HostClient http, String model) {
        var answer = http.post("/v1/chat/completions", HI.formatted(model));
        assertEquals(200, answer.status(), answer.body());
        return answer.json().at("/choices/0/message/content").asText();
    }

    static int closedPort() throws Exception {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void aRequestsModelPicksItsRouteAndTheRouteItsUpstreamModel() {
        var fast = upstream(Turn.text("from fast"));
        var http = start("""
                model:
                  routes:
                    fast: {base_url: "%s", model: small-model}
                """.formatted(fast.baseUrl()));
        assertEquals("from fast", ask(http, "fast"));
        assertEquals("small-model", fast.chatRequests().getFirst().body().path("model").asText());
        assertEquals("from the primary", ask(http, "hermes-agent"));
        assertEquals("from the primary", ask(http, "gpt-4o"), "another name: the default route, as before");
        var models = http.get("/v1/models").json().path("data");
        assertEquals("hermes-agent", models.get(0).path("id").asText());
        assertEquals("fast", models.get(1).path("id").asText(), models.toString());
    }

    /** With model.strict_names, a name that is neither the advertised one nor a route is 404 model_not_found. */
    @Test
    void strictNamesRefuseUnknownModels() {
        var fast = upstream(Turn.text("from fast"));
        var http = start("""
                model:
                  strict_names: true
                  routes:
                    fast: {base_url: "%s", model: small-model}
                """.formatted(fast.baseUrl()));
        var refused = http.post("/v1/chat/completions", HI.formatted("gpt-4o"));
        assertEquals(404, refused.status(), refused.body());
        assertEquals("model_not_found", refused.error().path("code").asText(), refused.body());
        assertTrue(refused.error().path("message").asText().contains("hermes-agent, fast"), refused.body());
        assertEquals("from fast", ask(http, "fast"));
        assertEquals("from the primary", ask(http, "hermes-agent"));
        assertEquals(2, upstreams.stream().mapToInt(u -> u.chatRequests().size()).sum(), "nothing went upstream for gpt-4o");
    }

    /** A key limited to some routes ({@code --models}) sees and may name only those; another route is 404 for it. */
    @Test
    void aKeyLimitedToSomeRoutesSeesAndUsesOnlyThose() {
        var fast = upstream(Turn.text("from fast"));
        var strong = upstream(Turn.text("from strong"));
        var admin = start("""
                model:
                  routes:
                    fast: {base_url: "%s", model: m}
                    strong: {base_url: "%s", model: m}
                """.formatted(fast.baseUrl(), strong.baseUrl()));
        var policy = dev.caduceus.platform.host.auth.KeyPolicy.NONE.withModels("fast");
        assertEquals("models=fast", policy.describe());
        var tenant = admin.withKey(host.addKey("tenant", policy));
        assertEquals("from fast", ask(tenant, "fast"));
        var refused = tenant.post("/v1/chat/completions", HI.formatted("strong"));
        assertEquals(404, refused.status(), refused.body());
        assertEquals("model_not_found", refused.error().path("code").asText());
        assertTrue(refused.error().path("message").asText().endsWith("Models here: hermes-agent, fast"), refused.body());
        assertEquals(0, strong.chatRequests().size());
        assertEquals("from the primary", ask(tenant, "hermes-agent"), "the advertised name stays the key's");
        var listed = new ArrayList<String>();
        tenant.get("/v1/models").json().path("data").forEach(m -> listed.add(m.path("id").asText()));
        assertEquals(List.of("hermes-agent", "fast"), listed);
        var all = new ArrayList<String>();
        admin.get("/v1/models").json().path("data").forEach(m -> all.add(m.path("id").asText()));
        assertEquals(List.of("hermes-agent", "fast", "strong"), all);
        assertEquals("from strong", ask(admin, "strong"));
    }

    /**
     * Every failure kind of a deployment before a token (a 401 too: its key is wrong, not the request): the call goes
     * to another deployment, and the failing one cools down.
     */
    @Test
    void aDeploymentThatFailsIsPassedOverAndCoolsDown() throws Exception {
        var good = upstream(Turn.text("from the good one"));
        var e500 = upstream(Turn.error(500, "boom"));
        var e503 = upstream(Turn.error(503, "overloaded"));
        var e429 = upstream(Turn.error(429, "slow down"));
        var slow = upstream(Turn.text("too late").delayMillis(5_000));
        var revoked = upstream(Turn.error(401, "Incorrect API key provided"));
        var http = start("""
                model:
                  cooldown_seconds: 60
                  routes:
                    pair:
                      deployments:
                        - {base_url: "%s", model: m}
                        - {base_url: "%s", model: m}
                        - {base_url: "%s", model: m}
                        - {base_url: "%s", model: m}
                        - {base_url: "http://127.0.0.1:%d/v1", model: m}
                        - {base_url: "%s", model: m, timeout_seconds: 1}
                        - {base_url: "%s", model: m}
                """.formatted(good.baseUrl(), e500.baseUrl(), e503.baseUrl(), e429.baseUrl(), closedPort(), slow.baseUrl(),
                revoked.baseUrl()));
        for (int i = 0; i < 12; i++) assertEquals("from the good one", ask(http, "pair"), "turn " + i);
        for (var failing : List.of(e500, e503, e429, slow, revoked))
            assertTrue(failing.chatRequests().size() <= 1, "tried once at most, then cooling: " + failing.chatRequests().size());
        assertEquals(12, good.chatRequests().size());
    }

    /** A 400 other than a context-length one is the request's fault: it is neither retried nor sent to the fallbacks. */
    @Test
    void aBadRequestIsNotSentElsewhere() {
        var strict = upstream(Turn.error(400, "Invalid schema for function 'x'"));
        var spare = upstream(Turn.text("should not be asked"));
        var http = start("""
                model:
                  routes:
                    strict: {base_url: "%s", model: m, fallbacks: [spare]}
                    spare: {base_url: "%s", model: m}
                """.formatted(strict.baseUrl(), spare.baseUrl()));
        var answer = http.post("/v1/chat/completions", HI.formatted("strict"));
        assertTrue(answer.body().contains("Invalid schema"), answer.body());
        assertEquals(1, strict.chatRequests().size());
        assertEquals(0, spare.chatRequests().size());
    }

    @Test
    void aStreamCutAfterItsFirstTokenIsNeverSentAgain() {
        var cut = upstream(Turn.textChunks("partial ", "answer ", "more").cutAfterChunks(2));
        var spare = upstream(Turn.text("should not be asked"));
        var http = start("""
                model:
                  routes:
                    cut: {base_url: "%s", model: m, fallbacks: [spare]}
                    spare: {base_url: "%s", model: m}
                """.formatted(cut.baseUrl(), spare.baseUrl()));
        var answer = http.post("/v1/chat/completions", "{\"model\":\"cut\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertTrue(answer.body().contains("partial"), answer.body());
        assertEquals(1, cut.chatRequests().size(), "not sent again");
        assertEquals(0, spare.chatRequests().size(), "nor to the fallback");
    }

    @Test
    void aContextLengthErrorFallsBackToTheNextRoute() {
        var small = upstream(Turn.error(400, "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens."));
        var big = upstream(Turn.text("from the big one"));
        var http = start("""
                model:
                  routes:
                    small: {base_url: "%s", model: small-8k, fallbacks: [big]}
                    big: {base_url: "%s", model: big-128k}
                """.formatted(small.baseUrl(), big.baseUrl()));
        assertEquals("from the big one", ask(http, "small"));
        assertEquals(1, small.chatRequests().size());
        assertEquals("big-128k", big.chatRequests().getFirst().body().path("model").asText());
    }

    @Test
    void weightsShareSequentialCalls() {
        var heavy = upstream(Turn.text("heavy"));
        var light = upstream(Turn.text("light"));
        var http = start("""
                model:
                  routes:
                    shared:
                      deployments:
                        - {base_url: "%s", model: m, weight: 3}
                        - {base_url: "%s", model: m, weight: 1}
                """.formatted(heavy.baseUrl(), light.baseUrl()));
        int calls = 400;
        for (int i = 0; i < calls; i++) ask(http, "shared");
        double share = heavy.chatRequests().size() / (double) calls;
        // 3:1 is 0.75; a binomial of 400 has a standard deviation of 0.022: ±0.08 is 3.7 of them
        assertTrue(Math.abs(share - 0.75) < 0.08, "heavy's share " + share);
        assertEquals(calls, heavy.chatRequests().size() + light.chatRequests().size());
    }

    @Test
    void aDeploymentAtItsRpmCapIsPassedOver() {
        var capped = upstream(Turn.text("capped"));
        var spare = upstream(Turn.text("spare"));
        var http = start("""
                model:
                  routes:
                    limited:
                      deployments:
                        - {base_url: "%s", model: m, weight: 1000, rpm: 3}
                        - {base_url: "%s", model: m, weight: 1}
                """.formatted(capped.baseUrl(), spare.baseUrl()));
        for (int i = 0; i < 10; i++) ask(http, "limited");
        assertTrue(capped.chatRequests().size() <= 3, "at most its 3 a minute: " + capped.chatRequests().size());
        assertTrue(spare.chatRequests().size() >= 7);
    }

    @Test
    void aCooledDownDeploymentComesBack() throws Exception {
        var flaky = upstream(Turn.text("flaky is back"));
        flaky.enqueue(Turn.error(503, "restarting"));
        var steady = upstream(Turn.text("steady"));
        var http = start("""
                model:
                  cooldown_seconds: 1
                  routes:
                    both:
                      deployments:
                        - {base_url: "%s", model: m, weight: 1000}
                        - {base_url: "%s", model: m, weight: 1}
                """.formatted(flaky.baseUrl(), steady.baseUrl()));
        assertEquals("steady", ask(http, "both"), "the failure went to the other at once");
        var flakyState = http.get("/health/detailed").json().at("/readiness/checks/model_routes/both/deployments/both~10");
        assertTrue(List.of("cooling_down", "failing").contains(flakyState.path("state").asText()), flakyState.toString());
        assertTrue(flakyState.path("last_failure").asText().contains("restarting"), flakyState.toString());
        Eventually.await(Duration.ofSeconds(30), "flaky serves again after its cooldown",
                () -> ask(http, "both"), "flaky is back"::equals);
        var checks = http.get("/health/detailed").json().at("/readiness/checks/model_routes");
        assertEquals("ok", checks.path("status").asText(), checks.toString());
        assertEquals("ok", checks.at("/both/deployments/both~10/state").asText(), "recovered: " + checks);
    }

    /**
     * Newer Hermes' {@code model_routes} under the API server's block: an alias of a model on the configured upstream
     * (no base_url), or another upstream; a request naming the alias gets that model.
     */
    @Test
    void hermesModelRoutesAreRoutes() {
        var other = upstream(Turn.text("from the other upstream"));
        var http = start("""
                gateway:
                  platforms:
                    api_server:
                      model_routes:
                        small: {model: qwen-small, provider: openai}
                        remote: {model: big-one, base_url: "%s"}
                """.formatted(other.baseUrl()));
        assertEquals("from the primary", ask(http, "small"));
        var primary = upstreams.get(1);
        assertEquals("qwen-small", primary.chatRequests().getLast().body().path("model").asText());
        assertEquals("from the other upstream", ask(http, "remote"));
        assertEquals("big-one", other.chatRequests().getFirst().body().path("model").asText());
        var listed = new ArrayList<String>();
        http.get("/v1/models").json().path("data").forEach(m -> listed.add(m.path("id").asText()));
        assertEquals(List.of("hermes-agent", "small", "remote"), listed);
    }

    @Test
    void mistakesInTheRoutesStopTheBootNamingTheKey() {
        for (var bad : List.of(
                new String[] {"model: {routes: {r: {model: m, api_key: sk-x}}}", "model.routes.r.base_url is required with api_key"},
                new String[] {"model: {routes: {r: {base_url: \"http://127.0.0.1:1/v1\", fallbacks: [nowhere]}}}",
                        "model.routes.r.fallbacks names no route: nowhere"},
                new String[] {"model: {routes: {r: {deployments: [{base_url: \"http://127.0.0.1:1/v1\", api_key_env: NO_SUCH_VAR_42}]}}}",
                        "model.routes.r.deployments[0].api_key_env names NO_SUCH_VAR_42"},
                new String[] {"model: {routes: {r: {base_url: \"http://127.0.0.1:1/v1\", weight: 0}}}",
                        "model.routes.r.weight must be at least 1"})) {
            var primary = upstream(Turn.text("unused"));
            var failed = assertThrows(RuntimeException.class, () -> TestHost.builder()
                    .plugins("endpoint-chat", "provider-openai").model(primary).configYaml(bad[0]).start());
            var message = String.valueOf(failed.getMessage()) + " " + (failed.getCause() == null ? "" : failed.getCause().getMessage());
            assertTrue(message.contains(bad[1]), bad[0] + " -> " + message);
            assertTrue(message.contains("config.yaml"), "names the file: " + message);
        }
    }
}
