package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.auth.KeyPolicy;
import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What model calls cost, on the real host with real SQLite and scripted upstreams: each call is priced from the
 * upstream's {@code usage} (cached and reasoning tokens at their own price) and summed per key, route and deployment
 * ({@code GET /api/usage}, a key sees only its own); a key's budget and tokens per minute refuse its next turn with 429
 * before the upstream is called; a route's context window sends a long prompt to its fallback unsent.
 */
@Timeout(120)
class ModelSpendTest {
    static final String HI = "{\"model\":\"%s\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    /**
     * 1,000 prompt tokens (400 cached), 500 completion tokens (200 reasoning) at input 2.5, cached 1.25, output 10 and
     * reasoning 20 USD per million: (600 × 2.5 + 400 × 1.25 + 300 × 10 + 200 × 20) / 10⁶ = 0.009 USD a call.
     */
    static final Turn PRICED = Turn.text("priced").usage(1000, 500, 200, 400);
    static final String PRICE = "{input: 2.5, cached_input: 1.25, output: 10, reasoning: 20}";
    final List<ScriptedUpstream> upstreams = new ArrayList<>();
    TestHost host;

    ScriptedUpstream upstream(Turn answer) {
        var upstream = ScriptedUpstream.start();
        upstream.setDefault(answer);
        upstreams.add(upstream);
        return upstream;
    }

    HostClient start(String yaml) {
        var primary = upstream(Turn.text("from the primary").usage(10, 5));
        host = TestHost.builder().plugins("endpoint-chat", "provider-openai").model(primary).configYaml(yaml).start();
        return host.http();
    }

    @AfterEach
    void stop() {
        if (host != null) host.close();
        upstreams.forEach(ScriptedUpstream::close);
    }

    static HostClient.Response ask(HostClient http, String model) {
        return http.post("/v1/chat/completions", HI.formatted(model));
    }

    static void ok(HostClient.Response answer) {
        assertEquals(200, answer.status(), answer.body());
    }

    String pricedRoute() {
        var fast = upstream(PRICED);
        return """
                model:
                  routes:
                    fast: {base_url: "%s", model: small, price: %s}
                """.formatted(fast.baseUrl(), PRICE);
    }

    @Test
    void eachCallIsPricedExactlyAndSummedPerKeyRouteAndDeployment() {
        var admin = start(pricedRoute());
        var tenant = admin.withKey(host.addKey("tenant", KeyPolicy.NONE));
        ok(ask(tenant, "fast"));
        ok(ask(tenant, "fast"));
        ok(ask(admin, "hermes-agent"));

        var mine = tenant.get("/api/usage");
        assertEquals(200, mine.status(), mine.body());
        var rows = mine.json().path("data");
        assertEquals(1, rows.size(), "the tenant sees only its own spend: " + mine.body());
        var row = rows.get(0);
        assertEquals("tenant", row.path("key").asText());
        assertEquals(LocalDate.now(ZoneOffset.UTC).toString(), row.path("day").asText());
        assertEquals("fast", row.path("route").asText());
        assertEquals("fast/0", row.path("deployment").asText());
        assertEquals(2, row.path("calls").asLong());
        assertEquals(2000, row.path("input_tokens").asLong());
        assertEquals(800, row.path("cached_tokens").asLong());
        assertEquals(1000, row.path("output_tokens").asLong());
        assertEquals(400, row.path("reasoning_tokens").asLong());
        assertEquals(0, new BigDecimal("0.018").compareTo(row.path("cost_usd").decimalValue()), row.toString());
        assertEquals(0, new BigDecimal("0.018").compareTo(mine.json().at("/total/cost_usd").decimalValue()));

        var all = admin.get("/api/usage?group_by=key");
        assertEquals(200, all.status(), all.body());
        assertEquals(2, all.json().path("data").size(), all.body());
        assertEquals("admin", all.json().at("/data/0/key").asText(), all.body());
        assertEquals(1, all.json().at("/data/0/calls").asLong());
        assertEquals(0, all.json().at("/data/0/cost_usd").decimalValue().signum(), "the primary has no price");
        assertEquals(3, all.json().at("/total/calls").asLong());
        assertEquals(1, admin.get("/api/usage?key=tenant").json().path("data").size());
        assertEquals(0, admin.get("/api/usage?route=nope").json().path("data").size());

        var metrics = admin.get("/metrics").body();
        assertTrue(metrics.contains("caduceus_model_cost_total{key=\"tenant\",route=\"fast\"} 0.018"), metrics);
    }

    @Test
    void usageAnswersBadInputWithTheContractsErrors() {
        var admin = start(pricedRoute());
        var tenant = admin.withKey(host.addKey("tenant", KeyPolicy.NONE));
        var other = tenant.get("/api/usage?key=admin");
        assertEquals(404, other.status(), other.body());
        assertEquals("key_not_found", other.error().path("code").asText());
        for (var query : List.of("from=yesterday", "to=2026-13-01", "from=2026-12-05&to=2026-12-01",
                "from=2020-01-01&to=2026-01-01", "group_by=owner")) {
            var bad = admin.get("/api/usage?" + query);
            assertEquals(400, bad.status(), query + ": " + bad.body());
            assertFalse(bad.error().path("message").asText().isBlank(), bad.body());
        }
        assertEquals(401, admin.withoutKey().get("/api/usage").status());
        assertEquals(401, admin.withKey("sk-wrong").get("/api/usage").status());
        var empty = admin.get("/api/usage?from=2026-01-01&to=2026-01-31");
        assertEquals(200, empty.status(), empty.body());
        assertEquals(0, empty.json().path("data").size());
        assertEquals(0, empty.json().at("/total/calls").asLong());
    }

    /**
     * A budget of exactly two calls' cost: the second reaches it, the third turn is refused before the upstream. The
     * 80 % warning is queued for the deployment's webhook endpoint that wants it (seen in its outbox).
     */
    @Test
    void aKeyAtItsBudgetIsRefusedBeforeTheUpstreamIsCalled() {
        var admin = start(pricedRoute() + """
                webhooks:
                  endpoints:
                    - {url: "http://127.0.0.1:9/hooks", secret: whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODkwYWJjZGVm, allow_private: true,
                       events: [key.budget_warning]}
                """);
        var tenant = admin.withKey(host.addKey("tenant", KeyPolicy.NONE.withBudget("0.018", "day")));
        ok(ask(tenant, "fast"));
        ok(ask(tenant, "fast"));
        int sent = upstreams.get(0).chatRequests().size();
        var refused = ask(tenant, "fast");
        assertEquals(429, refused.status(), refused.body());
        assertEquals("budget_exceeded", refused.error().path("code").asText(), refused.body());
        assertTrue(refused.error().path("message").asText().contains("0.018 USD/day"), refused.body());
        long retryAfter = Long.parseLong(refused.header("Retry-After").orElseThrow());
        assertTrue(retryAfter >= 1 && retryAfter <= 86_400, "until the next UTC day: " + retryAfter);
        assertEquals(sent, upstreams.get(0).chatRequests().size(), "nothing went upstream");
        var primary = ask(tenant, "hermes-agent");
        assertEquals(429, primary.status(), "the budget is the key's, whatever the route");
        ok(ask(admin, "fast"));
        var metrics = admin.get("/metrics").body();
        assertTrue(metrics.contains("caduceus_key_budget_warnings_total{key=\"tenant\"} 1.0"), metrics);
        assertTrue(metrics.contains("caduceus_key_spend_refusals_total{key=\"tenant\",reason=\"budget\"} 2.0"), metrics);
        var deliveries = admin.get("/api/webhooks/deliveries").json().path("data");
        assertEquals(1, deliveries.size(), "one warning per key and period: " + deliveries);
        assertEquals("key.budget_warning", deliveries.get(0).path("event_type").asText());
        var payload = admin.get("/api/webhooks/deliveries/" + deliveries.get(0).path("id").asText()).json().path("payload");
        assertEquals("tenant", payload.at("/data/key").asText(), payload.toString());
        assertEquals("0.018", payload.at("/data/spent_usd").asText(), payload.toString());
    }

    /** A deployment past its tokens per minute is passed over for the route's other one until its minute renews. */
    @Test
    void aDeploymentAtItsTokensPerMinuteIsPassedOver() {
        var capped = upstream(PRICED); // 1,500 tokens a call, against a tpm of 1,000
        var spare = upstream(Turn.text("from the spare"));
        var http = start("""
                model:
                  routes:
                    pool:
                      deployments:
                        - {base_url: "%s", model: a, tpm: 1000, weight: 1000}
                        - {base_url: "%s", model: b, weight: 1}
                """.formatted(capped.baseUrl(), spare.baseUrl()));
        for (int i = 0; i < 4; i++) ok(ask(http, "pool"));
        assertTrue(capped.chatRequests().size() <= 1, "after one call the capped one waits for its minute: "
                + capped.chatRequests().size());
        assertEquals(4, capped.chatRequests().size() + spare.chatRequests().size());
    }

    @Test
    void aKeyPastItsTokensPerMinuteWaitsForTheMinute() {
        var admin = start(pricedRoute());
        var tenant = admin.withKey(host.addKey("tenant", KeyPolicy.NONE.withTokensPerMinute("3000")));
        ok(ask(tenant, "fast")); // 1,500 tokens
        ok(ask(tenant, "fast")); // 3,000: at the limit
        var refused = ask(tenant, "fast");
        assertEquals(429, refused.status(), refused.body());
        assertEquals("rate_limit_exceeded", refused.error().path("code").asText(), refused.body());
        long retryAfter = Long.parseLong(refused.header("Retry-After").orElseThrow());
        assertTrue(retryAfter >= 1 && retryAfter <= 60, "within the minute: " + retryAfter);
        ok(ask(admin, "fast"));
    }

    /** A prompt past a deployment's context window is not sent to it: the route's fallback takes it. */
    @Test
    void aPromptPastTheContextWindowGoesToTheFallbackUnsent() {
        var small = upstream(Turn.text("from small"));
        var big = upstream(Turn.text("from big"));
        var http = start("""
                model:
                  routes:
                    small: {base_url: "%s", model: s, context_window: 50, fallbacks: [big]}
                    big: {base_url: "%s", model: b}
                """.formatted(small.baseUrl(), big.baseUrl()));
        var answer = ask(http, "small");
        ok(answer);
        assertEquals("from big", answer.json().at("/choices/0/message/content").asText(), "the system prompt alone is longer");
        assertEquals(0, small.chatRequests().size());
    }
}
