package dev.caduceus.plugin.jobs.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.plugin.jobs.JobCommands;
import dev.caduceus.plugin.jobs.JobStore;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import java.time.Clock;
import java.time.ZoneId;
import java.util.function.Supplier;

/**
 * The {@code jobs} family: every jobs route under {@code /api/jobs} (and {@code POST /api/jobs/preview}),
 * each wrapped in {@link FlatErrors}, and the {@code jobs_admin} capability flag. Immutable; handlers are thread-safe.
 */
public final class JobsFamily implements EndpointFamily {
    static final String BASE = "/api/jobs";
    static final String JOB = BASE + "/{job_id}";

    private final JobRoutes jobs;
    private final RunHistory history;
    private final JobPreview preview;

    public JobsFamily(JobStore store, JobCommands commands, Supplier<Runs> runs, Clock clock, ZoneId defaultZone) {
        this(store, commands, runs, clock, defaultZone, null);
    }

    /** @param webhooks checks the webhook a create or PATCH names; null: webhooks are refused */
    public JobsFamily(JobStore store, JobCommands commands, Supplier<Runs> runs, Clock clock, ZoneId defaultZone,
                      dev.caduceus.spi.webhook.Webhooks webhooks) {
        this.jobs = new JobRoutes(store, commands, clock, defaultZone, webhooks);
        this.history = new RunHistory(store, runs);
        this.preview = new JobPreview(clock, defaultZone);
    }

    @Override public String id() { return "jobs"; }

    @Override public String basePath() { return BASE; }

    @Override
    public void routes(Routes routes) {
        routes.get(BASE, "jobs", flat(jobs::list));
        routes.post(BASE, null, flat(jobs::create));
        routes.post(BASE + "/preview", "job_preview", flat(preview::handle)); // a literal: never a job id
        routes.get(JOB, null, flat(jobs::get));
        routes.patch(JOB, null, flat(jobs::patch));
        routes.delete(JOB, null, flat(jobs::delete));
        routes.post(JOB + "/pause", null, flat(jobs::pause));
        routes.post(JOB + "/resume", null, flat(jobs::resume));
        routes.post(JOB + "/run", null, flat(jobs::runNow));
        routes.get(JOB + "/runs", "job_runs", flat(history::handle));
    }

    @Override
    public ObjectNode features() {
        return JsonNodeFactory.instance.objectNode().put("jobs_admin", true);
    }

    private static HttpHandler flat(HttpHandler handler) {
        return new FlatErrors(handler);
    }
}
