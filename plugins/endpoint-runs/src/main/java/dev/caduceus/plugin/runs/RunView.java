package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.message.Usage;

/**
 * A run's status object, {@code "object": "hermes.run"} built from the host's
 * {@link RunRecord}, keys in a fixed order: the fields every run has, then {@code last_event}
 * after the first event, {@code output} and {@code usage} when completed, {@code error} when failed
 * or interrupted, {@code pending_steer} and {@code approval} when present, then {@code job_id},
 * {@code last_seq}, {@code owner}, and {@code resumes}, {@code resumed_at} and {@code resumed_node} once resumed. Stateless.
 */
final class RunView {
    static final String INTERRUPTED_ERROR = "The server restarted before this run settled.";

    private RunView() {}

    static ObjectNode of(RunRecord run) {
        var view = JsonNodeFactory.instance.objectNode()
                .put("object", "hermes.run")
                .put("run_id", run.runId())
                .put("status", run.status().wireName());
        view.set("updated_at", UnixSeconds.of(run.updatedAt()));
        view.set("created_at", UnixSeconds.of(run.createdAt()));
        view.put("session_id", run.sessionId()).put("model", run.model());
        var lastEvent = WireEvents.forLogicalName(run.lastEvent());
        if (lastEvent != null) view.put("last_event", lastEvent);
        if (run.status() == RunStatus.COMPLETED) {
            view.put("output", run.output());
            view.set("usage", usage(run.usage() == null ? Usage.ZERO : run.usage()));
        }
        if (run.status() == RunStatus.FAILED) view.put("error", run.error());
        if (run.status() == RunStatus.INTERRUPTED)
            view.put("error", run.error() == null ? INTERRUPTED_ERROR : run.error());
        if (run.pendingSteer() != null) view.put("pending_steer", run.pendingSteer());
        if (run.approval() != null) view.set("approval", RunEventFrames.approvalPayload(run.approval()));
        if (run.status() == RunStatus.REQUIRES_ACTION && !run.toolCalls().isEmpty()) { // OpenAI's Assistants shape
            var action = view.putObject("required_action").put("type", "submit_tool_outputs");
            action.putObject("submit_tool_outputs").set("tool_calls", dev.caduceus.support.clienttools.ToolTranscript.toolCallsJson(run.toolCalls()));
        }
        view.put("job_id", jobId(run.origin())).put("last_seq", run.lastSeq());
        view.put("owner", run.owner()); // a Caduceus addition: the key (tenant) the run belongs to
        var resumed = run.resumed(); // Caduceus additions, once the run went on after its server stopped
        if (resumed != null) {
            view.put("resumes", resumed.count());
            view.set("resumed_at", UnixSeconds.of(resumed.lastAt()));
            view.put("resumed_node", resumed.node());
        }
        return view;
    }

    /** The job of a run a scheduled job started (origin {@code job:<id>}), else null. */
    static String jobId(String origin) {
        return origin != null && origin.startsWith(ListQuery.JOB_ORIGIN) ? origin.substring(ListQuery.JOB_ORIGIN.length()) : null;
    }

    /** {@code {"input_tokens", "output_tokens", "total_tokens"}}. */
    static ObjectNode usage(Usage usage) {
        return JsonNodeFactory.instance.objectNode()
                .put("input_tokens", usage.inputTokens())
                .put("output_tokens", usage.outputTokens())
                .put("total_tokens", usage.totalTokens());
    }
}
