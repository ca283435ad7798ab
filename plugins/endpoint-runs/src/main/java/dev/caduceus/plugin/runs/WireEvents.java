package dev.caduceus.plugin.runs;

import java.util.Map;

/**
 * The runs API's event names and the map from the journal's logical event names
 * (and the host's {@code stopping} marker) to them, for {@code last_event} of the status object. Stateless.
 */
final class WireEvents {
    static final String MESSAGE_DELTA = "message.delta";
    static final String TOOL_STARTED = "tool.started";
    static final String TOOL_COMPLETED = "tool.completed";
    static final String REASONING = "reasoning.available";
    static final String APPROVAL_REQUEST = "approval.request";
    static final String APPROVAL_RESPONDED = "approval.responded";
    static final String STEERED = "run.steered";
    /** The run's server stopped and a node took it up again from its last step. */
    static final String RESUMED = "run.resumed";
    static final String COMPLETED = "run.completed";
    static final String FAILED = "run.failed";
    static final String CANCELLED = "run.cancelled";
    static final String STOPPING = "run.stopping";
    /** The run waits for the caller's outputs of its own tool calls ({@code POST /v1/runs/{id}/tool_outputs}). */
    static final String TOOL_CALLS_REQUIRED = "tool_calls.required";
    /** A model call answered by a model route's deployment: which one, its usage and cost (only with routes). */
    static final String MODEL_USAGE = "model.usage";

    private static final Map<String, String> BY_LOGICAL_NAME = Map.ofEntries(
            Map.entry("text_delta", MESSAGE_DELTA),
            Map.entry("tool_call_started", TOOL_STARTED),
            Map.entry("tool_call_finished", TOOL_COMPLETED),
            Map.entry("reasoning_delta", REASONING),
            Map.entry("approval_requested", APPROVAL_REQUEST),
            Map.entry("approval_resolved", APPROVAL_RESPONDED),
            Map.entry("steered", STEERED),
            Map.entry("resumed", RESUMED),
            Map.entry("tool_calls_required", TOOL_CALLS_REQUIRED),
            Map.entry("completed", COMPLETED),
            Map.entry("failed", FAILED),
            Map.entry("interrupted", FAILED),
            Map.entry("cancelled", CANCELLED),
            Map.entry("stopping", STOPPING),
            Map.entry("usage", MODEL_USAGE));

    private WireEvents() {}

    /**
     * The wire name for a record's {@code lastEvent}; null for null and for names that have none
     * ({@code started}: the host does not journal it for durable runs, and no internal name should reach a client).
     */
    static String forLogicalName(String logicalName) {
        return logicalName == null ? null : BY_LOGICAL_NAME.get(logicalName);
    }
}
