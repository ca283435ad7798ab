package dev.caduceus.plugin.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.agent.ResponseHistory;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import dev.caduceus.testkit.FakeDurableRuns;
import dev.caduceus.testkit.FakeExchange;
import dev.caduceus.testkit.FakePlatformContext;
import dev.caduceus.testkit.ManualClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

/** The runs family wired to a {@link FakeDurableRuns} on a fixed clock and a host on a manual one, with one call helper per route. */
final class RunsFixture {
    static final Instant NOW = Instant.parse("2026-01-15T09:00:00.114Z");

    final FakeDurableRuns runs = new FakeDurableRuns(Clock.fixed(NOW, ZoneOffset.UTC));
    /** The host's clock: the events cursor's grace passes only when a test advances it. */
    final ManualClock clock = new ManualClock(NOW);
    final FakePlatformContext ctx;
    final Map<String, HttpHandler> handlers = new HashMap<>();
    final Map<String, String> names = new HashMap<>();

    RunsFixture() {
        this(null);
    }

    RunsFixture(ResponseHistory history) {
        ctx = FakePlatformContext.builder("endpoint-runs").clock(clock).runs(runs).service(ResponseHistory.class, history).build();
        new RunsFamily(ctx, new RunsSettings(Duration.ofHours(24), Duration.ofMillis(300))).routes(new Routes() {
            @Override
            public Routes route(String method, String template, String name, HttpHandler h) {
                handlers.put(method + " " + template, h);
                names.put(method + " " + template, name);
                return this;
            }
        });
    }

    FakeExchange submit(String body, String... headers) throws Exception {
        var ex = new FakeExchange(ctx.json(), "POST", "/v1/runs").body(body);
        for (int i = 0; i < headers.length; i += 2) ex.requestHeader(headers[i], headers[i + 1]);
        return ex.call(handlers.get("POST /v1/runs"));
    }

    FakeExchange list(String... query) throws Exception {
        var ex = new FakeExchange(ctx.json(), "GET", "/v1/runs");
        for (int i = 0; i < query.length; i += 2) ex.queryParam(query[i], query[i + 1]);
        return ex.call(handlers.get("GET /v1/runs"));
    }

    FakeExchange status(String id) throws Exception {
        return new FakeExchange(ctx.json(), "GET", "/v1/runs/" + id).pathParam("run_id", id)
                .call(handlers.get("GET /v1/runs/{run_id}"));
    }

    /** An events request; {@code call(handler())} it after adding headers or query parameters. */
    FakeExchange eventsRequest(String id) {
        return new FakeExchange(ctx.json(), "GET", "/v1/runs/" + id + "/events").pathParam("run_id", id);
    }

    HttpHandler eventsHandler() {
        return handlers.get("GET /v1/runs/{run_id}/events");
    }

    FakeExchange events(String id) throws Exception {
        return eventsRequest(id).call(eventsHandler());
    }

    FakeExchange approval(String id, String body) throws Exception {
        return post(id, "approval", body);
    }

    FakeExchange steer(String id, String body) throws Exception {
        return post(id, "steer", body);
    }

    FakeExchange stop(String id, String body) throws Exception {
        return post(id, "stop", body);
    }

    private FakeExchange post(String id, String action, String body) throws Exception {
        return new FakeExchange(ctx.json(), "POST", "/v1/runs/" + id + "/" + action).pathParam("run_id", id).body(body)
                .call(handlers.get("POST /v1/runs/{run_id}/" + action));
    }

    /** Submits a plain run and returns its id. */
    String newRun() throws Exception {
        return submit("{\"input\":\"hi\"}").responseBody().get("run_id").asText();
    }

    RunRequest lastRequest() {
        return runs.submissions().getLast().request();
    }

    RunOptions lastOptions() {
        return runs.submissions().getLast().options();
    }

    JsonNode json(String text) throws Exception {
        return ctx.json().readTree(text);
    }

    /** The answer as the host would write it (compact JSON through the host mapper). */
    String written(JsonNode node) throws Exception {
        return ctx.json().writeValueAsString(node);
    }

    static void assertError(FakeExchange ex, int status, String code, String message) {
        assertEquals(status, ex.status(), ex.responseBody() == null ? "" : ex.responseBody().toString());
        var error = ex.responseBody().get("error");
        assertEquals(code, error.get("code").asText(), error.toString());
        if (message != null) assertEquals(message, error.get("message").asText());
    }
}
