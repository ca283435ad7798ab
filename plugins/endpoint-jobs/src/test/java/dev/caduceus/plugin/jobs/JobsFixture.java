package dev.caduceus.plugin.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.plugin.jobs.http.JobsFamily;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import dev.caduceus.testkit.FakeDurableRuns;
import dev.caduceus.testkit.FakeExchange;
import dev.caduceus.testkit.FakePlatformContext;
import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

/**
 * The jobs plugin's parts over a real SQLite {@link TestDatabase}, a {@link FakeDurableRuns} and a
 * {@link MutableClock}; calls routes the way the host's router would (by method and template).
 */
final class JobsFixture implements AutoCloseable {
    static final Instant T0 = Instant.parse("2026-01-15T09:00:00Z");

    final MutableClock clock = new MutableClock(T0);
    final TestDatabase db;
    final FakeDurableRuns runs = new FakeDurableRuns(clock);
    final FakePlatformContext ctx;
    final JobStore store;
    final JobScheduler scheduler;
    final JobCommands commands;
    private final Map<String, HttpHandler> routes = new HashMap<>();

    JobsFixture(Path dir) {
        this(dir, TestDatabase.open(dir, "endpoint-jobs"), ZoneOffset.UTC);
    }

    JobsFixture(Path dir, TestDatabase db, ZoneId defaultZone) {
        this.db = db;
        ctx = FakePlatformContext.builder("endpoint-jobs").database(db).clock(clock).runs(runs).build();
        store = new JobStore(db, ctx.json());
        var settings = new JobsSettings(defaultZone, Duration.ofSeconds(1), JobsSettings.START_TIMEOUT);
        scheduler = new JobScheduler(store, this::runs, clock, settings, "hermes-agent");
        commands = new JobCommands(store, this::runs, clock);
        new JobsFamily(store, commands, this::runs, clock, defaultZone).routes(new Routes() {
            @Override
            public Routes route(String method, String template, String name, HttpHandler handler) {
                routes.put(method + " " + template, handler);
                return this;
            }
        });
    }

    private Runs runs() {
        return runs;
    }

    /** Calls {@code method template} with {@code jobId} as the path's job id (or null) and {@code body} (or null). */
    FakeExchange call(String method, String template, String jobId, String body) throws Exception {
        return call(Caller.ADMIN_CALLER, method, template, jobId, body);
    }

    /**
     * {@link #call(String, String, String, String)} with the key {@code caller} and query parameters
     * {@code query} (name, value, name, value, …).
     */
    FakeExchange call(Caller caller, String method, String template, String jobId, String body, String... query)
            throws Exception {
        var handler = routes.get(method + " " + template);
        if (handler == null) throw new IllegalArgumentException("no route " + method + " " + template);
        var exchange = new FakeExchange(ctx.json(), method, template.replace("{job_id}", String.valueOf(jobId)))
                .caller(caller);
        if (jobId != null) exchange.pathParam("job_id", jobId);
        if (body != null) exchange.body(body);
        for (int i = 0; i < query.length; i += 2) exchange.queryParam(query[i], query[i + 1]);
        return exchange.call(handler);
    }

    /** Creates a job over the route and returns its object. */
    JsonNode create(String body) throws Exception {
        return create(Caller.ADMIN_CALLER, body);
    }

    /** Creates a job over the route with the key {@code caller} and returns its object. */
    JsonNode create(Caller caller, String body) throws Exception {
        var ex = call(caller, "POST", "/api/jobs", null, body);
        if (ex.status() != 201) throw new AssertionError(ex.status() + " " + ex.responseBody());
        return ex.responseBody().path("job");
    }

    Job job(String id) {
        return store.find(id).orElseThrow();
    }

    /** One scheduler pass at the clock's time, without the real-time look-ahead. */
    void tick() {
        scheduler.tick(Duration.ZERO);
    }

    @Override
    public void close() {
        scheduler.close();
        db.close();
    }
}
