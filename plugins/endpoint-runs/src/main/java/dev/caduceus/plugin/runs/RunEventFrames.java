package dev.caduceus.plugin.runs;

import dev.caduceus.support.clienttools.ToolTranscript;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.support.stream.RunEventTranslator;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import java.util.Locale;

/**
 * Translates journal entries into the runs API's frames: an {@code id: <seq>} line
 * and one unnamed {@code data:} object {@code {"event", "run_id", "timestamp", "seq", …}} with the
 * catalogue's extra fields. {@code Started} has no frame, nor has {@code UsageReported} unless it names the model
 * route's deployment that answered ({@code model.usage}; the host journals only those for durable runs).
 * Each frame is built and serialized once for all the streams of a run ({@link EncodedFrames}).
 * Thread-safe; one instance serves every stream of the handler.
 */
final class RunEventFrames implements RunEventTranslator {
    static final int REASONING_MAX = 500;

    private final EncodedFrames encoded;

    /** Frames taken from {@code encoded}, shared by every stream of the handler. */
    RunEventFrames(EncodedFrames encoded) {
        this.encoded = encoded;
    }

    @Override
    public void translate(JournalEntry entry, EventStream out) throws ClientGoneException {
        var frame = encoded.frame(entry);
        if (frame != null) out.event(entry.seq(), null, frame);
    }

    /** Which route and deployment answered a model call, its usage and cost. */
    private static ObjectNode usage(ObjectNode frame, RunEvent.UsageReported u) {
        frame.put("route", u.route()).put("deployment", u.deployment());
        frame.set("usage", RunView.usage(u.call()));
        return frame.put("cost_usd", u.costUsd());
    }

    /** The frame's data for {@code entry}, or null when the event has none. */
    static ObjectNode frame(JournalEntry entry) {
        return switch (entry.event()) {
            case RunEvent.Started s -> null;
            case RunEvent.UsageReported u -> u.deployment() == null ? null : usage(base(entry, WireEvents.MODEL_USAGE), u);
            case RunEvent.ToolCallsRequired t -> {
                var frame = base(entry, WireEvents.TOOL_CALLS_REQUIRED);
                frame.set("tool_calls", ToolTranscript.toolCallsJson(t.calls()));
                yield frame;
            }
            case RunEvent.TextDelta d -> base(entry, WireEvents.MESSAGE_DELTA).put("delta", d.text());
            case RunEvent.ReasoningDelta r ->
                    base(entry, WireEvents.REASONING).put("text", TextLimit.cut(r.text(), REASONING_MAX));
            case RunEvent.ToolCallStarted s -> base(entry, WireEvents.TOOL_STARTED).put("tool", s.tool())
                    .put("preview", s.argumentsPreview()).put("tool_call_id", s.callId());
            case RunEvent.ToolCallFinished f -> {
                var frame = base(entry, WireEvents.TOOL_COMPLETED).put("tool", f.tool());
                frame.set("duration", UnixSeconds.ofMillis(f.durationMillis()));
                yield frame.put("error", f.error()).put("output_preview", f.outputPreview())
                        .put("tool_call_id", f.callId());
            }
            case RunEvent.ApprovalRequested a -> approvalRequest(base(entry, WireEvents.APPROVAL_REQUEST), a);
            case RunEvent.ApprovalResolved a -> base(entry, WireEvents.APPROVAL_RESPONDED)
                    .put("choice", choice(a)).put("resolved", a.resolved()).put("timed_out", a.timedOut());
            case RunEvent.Steered s -> base(entry, WireEvents.STEERED).put("accepted", true);
            case RunEvent.Resumed r -> base(entry, WireEvents.RESUMED).put("node", r.node()).put("step", r.step())
                    .put("resumes", r.resumes());
            case RunEvent.Completed c -> {
                var frame = base(entry, WireEvents.COMPLETED).put("output", c.output());
                frame.set("usage", RunView.usage(c.usage() == null ? Usage.ZERO : c.usage()));
                if (c.pendingSteer() != null) frame.put("pending_steer", c.pendingSteer());
                yield frame;
            }
            case RunEvent.Failed f -> base(entry, WireEvents.FAILED).put("error", failure(f));
            case RunEvent.Cancelled c -> base(entry, WireEvents.CANCELLED);
            case RunEvent.Interrupted i -> base(entry, WireEvents.FAILED)
                    .put("error", RunView.INTERRUPTED_ERROR).put("interrupted", true);
        };
    }

    private static ObjectNode approvalRequest(ObjectNode frame, RunEvent.ApprovalRequested a) {
        frame.setAll(approvalPayload(a));
        return frame;
    }

    /** The approval payload (command, pattern keys, description, what may be allowed, request id) plus {@code choices}: the frame's body and a waiting run's {@code approval}. */
    static ObjectNode approvalPayload(RunEvent.ApprovalRequested a) {
        var frame = JsonNodeFactory.instance.objectNode();
        frame.put("command", a.command()).put("pattern_key", a.patternKey());
        var keys = frame.putArray("pattern_keys");
        if (a.patternKey() != null) keys.add(a.patternKey());
        frame.put("description", a.description()).put("allow_permanent", a.allowPermanent())
                .put("allow_session", true).put("request_id", a.approvalId());
        var choices = frame.putArray("choices").add("once").add("session");
        if (a.allowPermanent()) choices.add("always");
        choices.add("deny");
        return frame;
    }

    /** The answer as a wire choice; a timeout is a {@code deny}. */
    private static String choice(RunEvent.ApprovalResolved a) {
        if (a.timedOut() || "timed_out".equalsIgnoreCase(a.choice())) return "deny";
        return a.choice() == null ? null : a.choice().toLowerCase(Locale.ROOT);
    }

    private static String failure(RunEvent.Failed f) {
        if (f.message() != null && !f.message().isBlank()) return f.message();
        return f.code() != null ? f.code() : "Run failed";
    }

    private static ObjectNode base(JournalEntry entry, String event) {
        var frame = JsonNodeFactory.instance.objectNode().put("event", event).put("run_id", entry.runId());
        frame.set("timestamp", UnixSeconds.of(entry.timestamp()));
        return frame.put("seq", entry.seq());
    }
}
