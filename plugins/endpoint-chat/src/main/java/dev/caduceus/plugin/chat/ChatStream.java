package dev.caduceus.plugin.chat;

import dev.caduceus.support.stream.EventPump;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.support.stream.RunEventTranslator;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;

/**
 * One streaming chat answer: the role chunk, then the run's events translated in
 * arrival order (content chunks, tool progress), then the finish chunk, the optional usage chunk and
 * {@code [DONE]}. A client that leaves cancels the run. Confined to the handler's thread.
 */
final class ChatStream implements RunEventTranslator {
    static final String CANCEL_REASON = "client disconnected";

    private final ChatCompletions shapes;
    private final ToolProgress progress;
    private boolean ended;

    ChatStream(ChatCompletions shapes, ToolProgress progress) {
        this.shapes = shapes;
        this.progress = progress;
    }

    /** Streams {@code run} to {@code out} until its terminal event or the client leaves, then closes {@code out}. */
    void run(RunHandle run, EventStream out, EventPump pump) throws InterruptedException {
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
            case RunEvent.ToolCallFinished f -> progress.finished(f, out);
            case RunEvent.Completed c -> finish(TurnOutcome.of(c), out);
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
            case RunEvent.UsageReported u -> { }
        }
    }

    private void finish(TurnOutcome outcome, EventStream out) throws ClientGoneException {
        ended = true;
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
