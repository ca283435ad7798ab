package dev.caduceus.plugin.chat;

import com.fasterxml.jackson.core.JsonFactory;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.model.Models;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.support.cancel.OneShotCancellation;
import java.util.ArrayList;
import java.util.List;

/**
 * One housekeeping request answered by one plain model call ({@link Models}): the client's own
 * system text and messages go upstream as they are, with no tools, no core prompt, no session and no
 * run (so no journal and no concurrency slot), to {@code model.housekeeping_model} (else
 * {@code model.name}). The answer keeps the chat-completions shape, as JSON or as a chunk stream, as
 * the client asked. A client that leaves cancels the call. Confined to the handler's thread; the
 * client-gone callback only cancels.
 */
final class HousekeepingCall {
    private final Models models;
    private final String model;
    private final JsonFactory answers;

    /** @param model the upstream model: {@code model.housekeeping_model}, else the deployment's own */
    HousekeepingCall(Models models, String model, JsonFactory answers) {
        this.models = models;
        this.model = model;
        this.answers = answers;
    }

    void answer(HttpExchange exchange, ChatRequest request, ChatCompletions shapes) throws InterruptedException {
        var cancel = new OneShotCancellation();
        exchange.onClientGone(cancel::cancel);
        var call = new ModelRequest(model, messages(request), List.of(), request.options(),
                request.stream());
        if (request.stream()) stream(exchange.openEventStream(), call, cancel, shapes);
        else {
            var outcome = call(call, cancel, text -> { });
            if (!cancel.isCancelled()) ChatHandler.answer(exchange, outcome, shapes, answers);
        }
    }

    private void stream(EventStream out, ModelRequest call, OneShotCancellation cancel, ChatCompletions shapes) {
        try (out) {
            out.event(shapes.roleChunk());
            var outcome = call(call, cancel, text -> {
                try {
                    out.event(shapes.contentChunk(text));
                } catch (ClientGoneException e) {
                    cancel.cancel();
                }
            });
            if (cancel.isCancelled()) return;
            out.event(shapes.finishChunk(outcome));
            if (shapes.includeUsage()) out.event(shapes.usageChunk(outcome.usage()));
            out.data("[DONE]");
        } catch (ClientGoneException e) {
            cancel.cancel();
        }
    }

    /** Makes the call, handing each text delta to {@code text}; never throws for an upstream failure. */
    private TurnOutcome call(ModelRequest call, Cancellation cancel, java.util.function.Consumer<String> text) {
        var answer = new StringBuilder();
        var finish = new FinishReason[] {FinishReason.STOP};
        var usage = new Usage[] {Usage.ZERO};
        try {
            models.stream(call, event -> {
                switch (event) {
                    case ModelEvent.TextDelta d -> {
                        if (d.text().isEmpty()) return;
                        answer.append(d.text());
                        text.accept(d.text());
                    }
                    case ModelEvent.UsageReport u -> usage[0] = u.usage();
                    case ModelEvent.Finish f -> finish[0] = f.reason();
                    case ModelEvent.ReasoningDelta r -> { }
                    case ModelEvent.ToolCall c -> { } // no tools were offered
                }
            }, cancel);
        } catch (ModelException e) {
            return new TurnOutcome(answer.isEmpty() ? null : answer.toString(), StopReason.UPSTREAM_ERROR,
                    upstreamError(e), usage[0]);
        } catch (RuntimeException e) {
            return new TurnOutcome(answer.isEmpty() ? null : answer.toString(), StopReason.INTERNAL_ERROR,
                    "Internal server error: " + e.getClass().getSimpleName(), usage[0]);
        }
        var stop = finish[0] == FinishReason.LENGTH ? StopReason.OUTPUT_LENGTH : StopReason.STOP;
        return new TurnOutcome(answer.toString(), stop, null, usage[0]);
    }

    /** The client's system text first, then its messages: nothing of the agent's prompt. */
    private static List<Message> messages(ChatRequest request) {
        var messages = new ArrayList<Message>();
        if (!request.systemText().isEmpty()) messages.add(Message.system(request.systemText()));
        var turn = request.turn();
        messages.addAll(turn.history());
        messages.addAll(turn.input());
        return messages;
    }

    /** The agent loop's words for an upstream failure, so clients see one form. */
    private static String upstreamError(ModelException e) {
        var message = String.valueOf(e.getMessage());
        if (message.startsWith("Upstream model")) return message;
        return (e.status() > 0 ? "Upstream model returned " + e.status() + ": " : "Upstream model request failed: ")
                + message;
    }
}
