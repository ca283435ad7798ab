package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.http.Routes;

/**
 * The {@code runs} family: every runs route under {@code /v1/runs}, named as
 * {@code /v1/capabilities} lists them, and the family's capability flags. Immutable; its handlers
 * are thread-safe.
 */
final class RunsFamily implements EndpointFamily {
    static final String BASE = "/v1/runs";
    static final String RUN = BASE + "/{run_id}";

    private final PlatformContext ctx;
    private final RunsSettings settings;

    RunsFamily(PlatformContext ctx, RunsSettings settings) {
        this.ctx = ctx;
        this.settings = settings;
    }

    @Override public String id() { return "runs"; }

    @Override public String basePath() { return BASE; }

    @Override
    public void routes(Routes routes) {
        routes.post(BASE, "runs", new SubmitHandler(ctx));
        routes.get(BASE, "run_list", new ListHandler(ctx));
        routes.get(RUN, "run_status", new StatusHandler(ctx));
        routes.get(RUN + "/events", "run_events", new EventsHandler(ctx, settings.cursorGrace()));
        routes.post(RUN + "/approval", "run_approval", new ApprovalHandler(ctx));
        routes.post(RUN + "/steer", "run_steer", new SteerHandler(ctx));
        routes.post(RUN + "/stop", "run_stop", new StopHandler(ctx));
        routes.post(RUN + "/tool_outputs", "run_tool_outputs", new ToolOutputsHandler(ctx));
        routes.get(RUN + "/artifacts", "run_artifacts", new ArtifactsHandler(ctx));
    }

    /** The host merges the nested {@code idempotency} object with the other families' keys. */
    @Override
    public ObjectNode features() {
        var features = JsonNodeFactory.instance.objectNode()
                .put("run_submission", true)
                .put("run_status", true)
                .put("run_events_sse", true)
                .put("run_stop", true)
                .put("run_approval_response", true)
                .put("run_steer", true)
                .put("run_tool_outputs", true)
                .put("client_tools", true)
                .put("approval_events", true)
                .put("run_list", true)
                .put("run_events_resume", true)
                .put("model_options", true)
                .put("session_key_header", SessionRules.SESSION_KEY);
        features.putObject("idempotency").putObject("runs")
                .put("supported", true)
                .put("durable", true)
                .put("retention_seconds", settings.idempotencyRetention().toSeconds());
        return features;
    }
}
