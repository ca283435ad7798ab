package dev.caduceus.platform.runtime.agent;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.model.ModelRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** An in-memory upstream: each call plays the next scripted step and records the request. */
final class ScriptedModel implements ModelProvider {
    /** One scripted call. */
    interface Step {
        void play(ModelRequest request, java.util.function.Consumer<ModelEvent> sink, Cancellation cancel)
                throws ModelException;
    }

    final List<ModelRequest> requests = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Step> steps = new ConcurrentLinkedQueue<>();

    ScriptedModel then(Step step) {
        steps.add(step);
        return this;
    }

    ScriptedModel answer(String text) {
        return then(events(new ModelEvent.TextDelta(text), usage(), new ModelEvent.Finish(FinishReason.STOP)));
    }

    ScriptedModel toolCalls(ModelEvent.ToolCall... calls) {
        var events = new ArrayList<ModelEvent>(List.of(calls));
        events.add(usage());
        events.add(new ModelEvent.Finish(FinishReason.TOOL_CALLS));
        return then(events(events.toArray(ModelEvent[]::new)));
    }

    ScriptedModel fail(int status, boolean retryable, String message) {
        return then((r, s, c) -> { throw new ModelException(message, retryable, status, null); });
    }

    /** Blocks until cancelled, after one text delta. */
    ScriptedModel hang(CountDownLatch entered) {
        return then((r, sink, cancel) -> {
            sink.accept(new ModelEvent.TextDelta("partial"));
            var done = new CountDownLatch(1);
            try (var hook = cancel.onCancel(done::countDown)) {
                entered.countDown();
                done.await(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new ModelException("interrupted", false, 0, e);
            }
            throw new ModelException("stream closed", true, 0, null);
        });
    }

    static Step events(ModelEvent... events) {
        return (request, sink, cancel) -> { for (var e : events) sink.accept(e); };
    }

    static ModelEvent.UsageReport usage() {
        return new ModelEvent.UsageReport(new Usage(10, 5, 15));
    }

    static ModelEvent.ToolCall call(String id, String name, String key, Object value) {
        ObjectNode args = JsonNodeFactory.instance.objectNode();
        if (value instanceof Integer i) args.put(key, i);
        if (value instanceof String s) args.put(key, s);
        return new ModelEvent.ToolCall(id, name, args);
    }

    static ModelEvent.ToolCall call(String id, String name, ObjectNode args) {
        return new ModelEvent.ToolCall(id, name, args);
    }

    @Override
    public String id() {
        return "scripted";
    }

    @Override
    public void stream(ModelRequest request, java.util.function.Consumer<ModelEvent> sink, Cancellation cancel)
            throws ModelException {
        requests.add(request);
        var step = steps.poll();
        if (step == null) throw new AssertionError("no scripted step left for call " + requests.size());
        step.play(request, sink, cancel);
    }
}
