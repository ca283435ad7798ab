package dev.caduceus.plugin.chat;

import dev.caduceus.support.stream.EventPump;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.support.stream.RunEventTranslator;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import dev.caduceus.spi.message.Message;
import java.util.List;

/**
 * One streaming chat answer: the role chunk, then the run's events translated in
 * arrival order (content chunks, tool progress), then the finish chunk, the optional usage chunk and
 * {@code [DONE]}. A client that leaves cancels the run. Confined to the handler's thread.
 */
final class ChatStream implements RunEventTranslator {
    static final String CANCEL_REASON = "client disconnected";

    /** Keeps the server's side of a turn that ended with the client's calls, before the client can answer them. */
    @FunctionalInterface
    interface Handoff {
        void remember(List<Message.ToolCallRef> calls);

        Handoff NONE = calls -> { };
    }

    private final ChatCompletions shapes;
    private final ToolProgress progress;
    private final Handoff handoff;
    private List<Message.ToolCallRef> toolCalls = List.of();
    private boolean ended;
    private DeliveredLinks links;
    private boolean delivered;
    private String runId;

    ChatStream(ChatCompletions shapes, ToolProgress progress) {
        this(shapes, progress, Handoff.NONE);
    }

    ChatStream(ChatCompletions shapes, ToolProgress progress, Handoff handoff) {
        this.shapes = shapes;
        this.progress = progress;
        this.handoff = handoff;
    }

    /** Streams {@code run} to {@code out} until its terminal event or the client leaves, then closes {@code out}. */
    void run(RunHandle run, EventStream out, EventPump pump) throws InterruptedException {
        runId = run.id();
        try (out) {
            try {
                out.event(shapes.roleChunk());
            } catch (ClientGoneException e) {
                run.cancel(CANCEL_REASON);
                return;
            }
            EventPump.Result result;
            try (var subscription = run.subscribe(0)) {
                result = pump.pump(subscription, this, out);
            } catch (RuntimeException e) {
                // The run's journal broke under us: end the stream the way an agent crash does.
                run.cancel("stream failed");
                endWithCrash(out, "Internal server error");
                return;
            }
            if (result == EventPump.Result.CLIENT_GONE) run.cancel(CANCEL_REASON);
            else if (!ended) endWithCrash(out, "Agent run ended without a result");
        }
    }

    @Override
    public void translate(JournalEntry entry, EventStream out) throws ClientGoneException {
        switch (entry.event()) {
            case RunEvent.TextDelta d -> {
                if (!d.text().isEmpty()) out.event(shapes.contentChunk(d.text()));
            }
            case RunEvent.ToolCallStarted s -> progress.started(s, out);
            case RunEvent.ToolCallFinished f -> {
                progress.finished(f, out);
                if (f.tool().equals(dev.caduceus.support.services.FileLibrary.DELIVER_TOOL) && !f.error()) delivered = true;
            }
            case RunEvent.ToolCallsRequired t -> {
                toolCalls = t.calls();
                for (var chunk : shapes.toolCallChunks(t.calls())) out.event(chunk);
            }
            case RunEvent.Completed c -> {
                var outcome = TurnOutcome.of(c);
                if (c.stopReason() == dev.caduceus.spi.agent.StopReason.TOOL_CALLS) {
                    handoff.remember(toolCalls); // before the client can see the end and answer
                    outcome = outcome.withToolCalls(toolCalls);
                }
                finish(outcome, out);
            }
            case RunEvent.Failed f -> finish(TurnOutcome.of(f), out);
            case RunEvent.Cancelled c -> finish(TurnOutcome.of(c), out);
            case RunEvent.Interrupted i -> {
                ended = true;
                out.event(shapes.crashChunk(i.reason() == null ? "Interrupted" : i.reason()));
                out.data("[DONE]");
            }
            // Not shown on the chat wire (it has no frame for them).
            case RunEvent.Started s -> { }
            case RunEvent.ReasoningDelta r -> { }
            case RunEvent.ApprovalRequested a -> { }
            case RunEvent.ApprovalResolved a -> { }
            case RunEvent.Steered s -> { }
            case RunEvent.Resumed r -> { } // a chat turn is never resumed
            case RunEvent.UsageReported u -> { }
        }
    }

    /** This stream ends its answer with links to the files the agent delivered. */
    ChatStream withLinks(DeliveredLinks links) {
        this.links = links;
        return this;
    }

    private void finish(TurnOutcome outcome, EventStream out) throws ClientGoneException {
        ended = true;
        if (delivered && links != null && outcome.stopReason().completed()) {
            var footer = links.footer(runId);
            if (footer.isPresent()) out.event(shapes.contentChunk(footer.get()));
        }
        out.event(shapes.finishChunk(outcome));
        if (shapes.includeUsage()) out.event(shapes.usageChunk(outcome.usage()));
        out.data("[DONE]");
    }

    private void endWithCrash(EventStream out, String message) {
        try {
            out.event(shapes.crashChunk(message));
            out.data("[DONE]");
        } catch (ClientGoneException ignored) {
            // Nobody is listening any more; the run was cancelled or has ended.
        }
    }
}
