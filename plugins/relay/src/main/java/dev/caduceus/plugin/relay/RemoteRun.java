package dev.caduceus.plugin.relay;

import dev.caduceus.spi.message.Message.ToolCallRef;
import java.util.List;
import java.util.function.Consumer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.tool.ToolContext.ApprovalRequest;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The parsing state of one turn run on the remote's runs API: the events of its event stream
 * (possibly over several connections, as the host's SSE reader delivers them) in, the front's run events out.
 * {@code message.delta} → text delta, {@code reasoning.available} → reasoning delta,
 * {@code tool.started}/{@code tool.completed} → tool started/finished (the remote's
 * {@code tool_call_id}, tool, preview and duration), {@code approval.request} → handed to the
 * approval sink with its {@code request_id}, {@code run.completed} → usage reported and the
 * outcome, {@code run.failed}/{@code run.cancelled} → the outcome. Frames whose {@code id} is not
 * after the last one seen are skipped, so a resumed stream never repeats an event; events this
 * version does not know are ignored. Confined to the run's thread.
 */
final class RemoteRun {
    /** How the remote run ended. */
    enum Outcome { COMPLETED, FAILED, CANCELLED }

    private final ObjectMapper json;
    private final RunContext context;
    private final BiConsumer<String, ApprovalRequest> approvals;
    private final StringBuilder output = new StringBuilder();
    private final Map<String, ArrayDeque<String>> unnamedTools = new HashMap<>();
    private final Consumer<List<ToolCallRef>> toolCalls;
    private long lastSeq;
    private Outcome outcome;
    private String finalOutput;
    private String error;
    private Usage usage = Usage.ZERO;

    /**
     * @param approvals receives {@code (request_id, request)} for each {@code approval.request} (the id
     *                  null when the remote sent none); must not block
     * @param toolCalls receives the caller's own calls of each {@code tool_calls.required} event; must not block
     */
    RemoteRun(ObjectMapper json, RunContext context, BiConsumer<String, ApprovalRequest> approvals,
              Consumer<List<ToolCallRef>> toolCalls) {
        this.json = json;
        this.context = context;
        this.approvals = approvals;
        this.toolCalls = toolCalls;
    }

    /** Feeds one event; returns true once a terminal event was read. */
    boolean event(OutboundHttp.Event event) throws RemoteTurn.Malformed {
        Long id = null;
        if (event.id().isPresent()) {
            try {
                id = Long.parseLong(event.id().get().strip());
            } catch (NumberFormatException e) {
                throw new RemoteTurn.Malformed("an event id is not a number");
            }
        }
        dispatch(id, event.data());
        return outcome != null;
    }

    private void dispatch(Long id, String frame) throws RemoteTurn.Malformed {
        JsonNode node;
        try {
            node = json.readTree(frame);
        } catch (IOException e) {
            throw new RemoteTurn.Malformed("an event is not JSON");
        }
        if (node == null || !node.isObject() || !node.path("event").isTextual())
            throw new RemoteTurn.Malformed("an event has no 'event' name");
        long seq = id != null ? id : node.path("seq").asLong(0);
        if (seq > 0) {
            if (seq <= lastSeq) return;
            lastSeq = seq;
        }
        switch (node.path("event").asText()) {
            case "message.delta" -> {
                var delta = node.path("delta").asText("");
                if (delta.isEmpty()) return;
                output.append(delta);
                context.emit(new RunEvent.TextDelta(delta));
            }
            case "reasoning.available" -> {
                var text = node.path("text").asText("");
                if (!text.isEmpty()) context.emit(new RunEvent.ReasoningDelta(text));
            }
            case "tool.started" -> {
                var tool = node.path("tool").asText("");
                if (tool.isEmpty()) return;
                var callId = text(node, "tool_call_id");
                if (callId == null) {
                    callId = "remote_" + seq;
                    unnamedTools.computeIfAbsent(tool, t -> new ArrayDeque<>()).add(callId);
                }
                context.emit(new RunEvent.ToolCallStarted(callId, tool, json.createObjectNode(), text(node, "preview"), null));
            }
            case "tool.completed" -> {
                var tool = node.path("tool").asText("");
                if (tool.isEmpty()) return;
                var callId = text(node, "tool_call_id");
                if (callId == null) {
                    var started = unnamedTools.get(tool);
                    callId = started == null ? null : started.poll();
                    if (callId == null) return; // never announced
                }
                long millis = Math.max(0, Math.round(node.path("duration").asDouble(0) * 1000));
                context.emit(new RunEvent.ToolCallFinished(callId, tool, millis, node.path("error").asBoolean(false), ""));
            }
            case "approval.request" -> {
                var requestId = text(node, "request_id"); // null: the answer goes to the remote's oldest request
                approvals.accept(requestId, new ApprovalRequest(node.path("command").asText(""),
                        node.path("description").asText(""), text(node, "pattern_key"),
                        node.path("allow_permanent").asBoolean(true)));
            }
            case "tool_calls.required" -> {
                var calls = new java.util.ArrayList<ToolCallRef>();
                for (var call : node.path("tool_calls")) {
                    var callId = text(call, "id");
                    var name = call.path("function").path("name").asText("");
                    if (callId == null || name.isEmpty()) continue;
                    calls.add(new ToolCallRef(callId, name,
                            dev.caduceus.support.clienttools.ToolTranscript.arguments(call.path("function").path("arguments"))));
                }
                if (!calls.isEmpty()) toolCalls.accept(calls);
            }
            case "run.completed" -> {
                outcome = Outcome.COMPLETED;
                finalOutput = text(node, "output");
                var u = node.path("usage");
                if (u.isObject()) {
                    usage = new Usage(Math.max(0, u.path("input_tokens").asLong()), Math.max(0, u.path("output_tokens").asLong()),
                            Math.max(0, u.path("total_tokens").asLong()));
                    context.emit(new RunEvent.UsageReported(usage, usage));
                }
            }
            case "run.failed" -> {
                outcome = Outcome.FAILED;
                error = text(node, "error");
            }
            case "run.cancelled" -> outcome = Outcome.CANCELLED;
            default -> { } // approval.responded, run.steered and newer events: nothing to show on the front
        }
    }

    private static String text(JsonNode node, String field) {
        var value = node.path(field);
        return value.isTextual() && !value.asText().isEmpty() ? value.asText() : null;
    }

    /** The sequence number of the last event read: the cursor to resume from. */
    long lastSeq() {
        return lastSeq;
    }

    /** The answer: the remote's final {@code output} once completed, else the text streamed so far. */
    String output() {
        return finalOutput != null ? finalOutput : output.toString();
    }

    Usage usage() {
        return usage;
    }

    /** How it ended, or null while it has not. */
    Outcome outcome() {
        return outcome;
    }

    /** The remote's {@code error} of a failed run, or null. */
    String error() {
        return error;
    }
}
