package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Executes the tool calls of one assistant message: concurrently, at most
 * {@code maxParallel} at a time, when there are several and every tool is {@code parallelSafe};
 * otherwise one after another in order. Each call runs on its own virtual thread so that a stop
 * interrupts it and the run thread returns at once. Events are emitted on the run thread:
 * {@code ToolCallStarted} when a call is launched, {@code ToolCallFinished} as it completes.
 * Used by one run thread at a time.
 */
final class ToolBatch {
    private static final int CANCELLED = -1;

    private final ToolDispatcher dispatcher;
    private final int maxParallel;
    private final Redactor redactor;

    ToolBatch(ToolDispatcher dispatcher, int maxParallel, Redactor redactor) {
        this.dispatcher = dispatcher;
        this.maxParallel = Math.max(1, maxParallel);
        this.redactor = redactor;
    }

    /**
     * Runs {@code calls}; returns their outcomes in call order, or null when the run was cancelled
     * (the running tools have been interrupted).
     */
    List<ToolOutcome> run(List<ToolCall> calls, Map<String, Tool> offered, RunContext ctx, TurnScope scope)
            throws InterruptedException {
        return run(calls, offered, ctx, scope, (call, outcome) -> { });
    }

    /** As {@link #run(List, Map, RunContext, TurnScope)}, telling {@code onOutcome} of each outcome as it comes (run thread). */
    List<ToolOutcome> run(List<ToolCall> calls, Map<String, Tool> offered, RunContext ctx, TurnScope scope,
                          java.util.function.BiConsumer<ToolCall, ToolOutcome> onOutcome) throws InterruptedException {
        int limit = parallel(calls, offered) ? Math.min(maxParallel, calls.size()) : 1;
        var outcomes = new ArrayList<ToolOutcome>(calls.size());
        calls.forEach(c -> outcomes.add(null));
        var done = new LinkedBlockingQueue<Integer>();
        var threads = new ArrayList<Thread>();
        var cancel = ctx.cancellation();
        try (var hook = cancel.onCancel(() -> done.add(CANCELLED))) {
            int next = 0;
            int running = 0;
            int finished = 0;
            while (finished < calls.size()) {
                while (running < limit && next < calls.size()) {
                    threads.add(launch(calls.get(next), next, offered, ctx, scope, outcomes, done));
                    next++;
                    running++;
                }
                int index = done.take();
                if (index == CANCELLED) {
                    threads.forEach(Thread::interrupt);
                    return null;
                }
                running--;
                finished++;
                var call = calls.get(index);
                var outcome = outcomes.get(index);
                if (!call.name().startsWith("_"))
                    ctx.emit(new RunEvent.ToolCallFinished(call.id(), call.name(), outcome.durationMillis(),
                            outcome.error(), outcome.content(), ToolPreview.output(outcome.content(), redactor)));
                onOutcome.accept(call, outcome);
            }
            return outcomes;
        } catch (InterruptedException e) {
            threads.forEach(Thread::interrupt);
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private Thread launch(ToolCall call, int index, Map<String, Tool> offered, RunContext ctx, TurnScope scope,
                          List<ToolOutcome> outcomes, LinkedBlockingQueue<Integer> done) {
        if (!call.name().startsWith("_")) {
            var tool = offered.get(call.name());
            ctx.emit(new RunEvent.ToolCallStarted(call.id(), call.name(), call.arguments(),
                    ToolPreview.preview(call.name(), call.arguments(), redactor),
                    ToolPreview.emoji(call.name(), tool == null ? null : tool.spec().emoji())));
            // a call that must not run twice is on record before it runs: a resumed run then knows it started
            if (tool != null && !tool.spec().repeatable()) ctx.commit();
        }
        var cancel = ctx.cancellation();
        return Thread.ofVirtual().name("tool-" + call.name()).start(() -> {
            try {
                var outcome = dispatcher.dispatch(call, offered, scope, cancel);
                synchronized (outcomes) {
                    outcomes.set(index, outcome);
                }
                done.add(index);
            } catch (InterruptedException e) {
                // the run was cancelled; nobody waits for this outcome
            }
        });
    }

    private static boolean parallel(List<ToolCall> calls, Map<String, Tool> offered) {
        if (calls.size() < 2) return false;
        for (var call : calls) {
            var tool = offered.get(call.name());
            if (tool == null || !tool.spec().parallelSafe() || call.arguments().has(ToolDispatcher.INVALID_ARGUMENTS))
                return false;
        }
        return true;
    }
}
