package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import java.util.ArrayList;
import java.util.List;

/**
 * The state of one agent turn: the messages sent upstream (system prompt first, budget notices and
 * the grace prompt included) and the messages this turn adds to the transcript (without them), the
 * call count, the usage so far and the last answer text; and how each way of stopping maps to a result. Confined to the
 * run thread.
 *
 * <p>Results: {@code errorCode} is {@code output_truncated} for iteration limit, output length and
 * context length, {@code agent_error} for every other non-{@code stop} reason.
 */
final class TurnState {
    private final List<Message> upstream = new ArrayList<>();
    private final List<Message> added = new ArrayList<>();
    private final int max;
    private int apiCalls;
    private Usage usage = Usage.ZERO;
    private String lastText;

    TurnState(Message system, List<Message> messages, int max) {
        upstream.add(system);
        upstream.addAll(messages);
        this.max = max;
    }

    /**
     * A resumed run's saved messages, added as they were (the tool results of each assistant message in its calls'
     * order, however they finished), with the model calls and usage by then.
     */
    void restore(List<Message> saved, int calls, Usage usageSoFar) {
        for (int i = 0; i < saved.size(); ) {
            var m = saved.get(i++);
            add(m, m.role().equals("assistant") ? m.text() : null);
            if (!m.role().equals("assistant") || m.toolCalls().isEmpty()) continue;
            var results = new java.util.LinkedHashMap<String, Message>();
            while (i < saved.size() && saved.get(i).role().equals("tool")) {
                var t = saved.get(i++);
                results.put(t.toolCallId(), t);
            }
            for (var call : m.toolCalls()) {
                var t = results.remove(call.id());
                if (t != null) add(t, null);
            }
            results.values().forEach(t -> add(t, null));
        }
        apiCalls = calls;
        usage = usageSoFar;
    }

    /** The tool calls of the last assistant message that have no result yet, in order (a resumed run's in flight). */
    List<Message.ToolCallRef> unanswered() {
        var answered = new java.util.HashSet<String>();
        for (int i = added.size() - 1; i >= 0; i--) {
            var m = added.get(i);
            if (m.role().equals("tool")) {
                answered.add(m.toolCallId());
            } else if (m.role().equals("assistant")) {
                return m.toolCalls().stream().filter(c -> !answered.contains(c.id())).toList();
            } else {
                return List.of();
            }
        }
        return List.of();
    }

    /** Appends {@code note} to the last upstream message when it is a tool result (never stored). */
    void noteOnLastResult(String note) {
        var last = upstream.getLast();
        if (!last.role().equals("tool")) return;
        upstream.set(upstream.size() - 1, new Message(last.role(), List.of(new dev.caduceus.spi.message.ContentPart.Text(
                last.text() + note)), last.toolCalls(), last.toolCallId(), last.name()));
    }

    /** The model calls made and the usage so far, for a checkpoint. */
    Usage usage() { return usage; }

    int max() { return max; }

    int apiCalls() { return apiCalls; }

    void countCall() { apiCalls++; }

    /** Adds a call's usage; returns the turn total. */
    Usage addUsage(Usage call) {
        usage = usage.plus(call);
        return usage;
    }

    List<Message> upstream() { return List.copyOf(upstream); }

    /** A message sent upstream and kept in the transcript; {@code text} (if not blank) becomes the text so far. */
    void add(Message message, String text) {
        upstream.add(message);
        added.add(message);
        if (text != null && !text.isBlank()) lastText = text;
    }

    /** A message sent upstream only (the grace prompt). */
    void prompt(Message message) {
        upstream.add(message);
    }

    /** The final assistant answer. */
    void answer(String text) {
        add(Message.assistant(text), text);
    }

    /**
     * Appends a budget notice to the last upstream message (a tool message) when 70 % of the iterations are used
     * ("Start consolidating"), a sharper one at 90 % ("Provide your final response NOW"); never stored.
     */
    void budgetNotice() {
        double used = (double) apiCalls / max;
        int left = max - apiCalls;
        String notice;
        if (used >= 0.9)
            notice = "\n\n[BUDGET WARNING: Iteration " + apiCalls + "/" + max + ". Only " + left
                    + " iteration(s) left. Provide your final response NOW.]";
        else if (used >= 0.7)
            notice = "\n\n[BUDGET: Iteration " + apiCalls + "/" + max + ". " + left
                    + " iterations left. Start consolidating your work.]";
        else return;
        noteOnLastResult(notice); // after a tool batch the last upstream message is a tool result
    }

    RunResult result(StopReason reason, String output, String error) {
        String code = reason.completed() ? null : reason.truncated() ? "output_truncated" : "agent_error";
        return RunResult.of(reason, output, usage, code, error, added);
    }

    RunResult interrupted(String partial) {
        return result(StopReason.INTERRUPTED, partial != null ? partial : lastText, "Interrupted");
    }

    RunResult truncated(String text) {
        var output = text == null || text.isBlank() ? null : text;
        if (output != null) answer(output);
        return result(StopReason.OUTPUT_LENGTH, output, "Model output was truncated (max_tokens)");
    }

    RunResult failed(ModelReply.Failure failure) {
        if (failure.reason() == StopReason.CONTEXT_LENGTH) return result(StopReason.CONTEXT_LENGTH, null, failure.error());
        var partial = failure.partialText() != null ? failure.partialText() : lastText;
        return result(failure.reason(), partial, failure.error());
    }
}
