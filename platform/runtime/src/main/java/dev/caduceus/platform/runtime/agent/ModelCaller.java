package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.model.ModelRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One upstream call with the retry policy: a retryable {@link ModelException} is
 * retried after each wait of the {@link RetryPolicy}, unless text or tool calls of this call were
 * already emitted; a 400 about the context size is {@code CONTEXT_LENGTH}; anything else is
 * {@code UPSTREAM_ERROR} with {@code Upstream model returned <status>: <message>} (redacted).
 * Streamed text and reasoning are emitted on the run thread as they arrive. Stateless.
 */
final class ModelCaller {

    private final ModelProvider provider;
    private final RetryPolicy retries;
    private final Redactor redactor;
    private final AgentMetrics metrics;
    private final String providerLabel;
    private final String modelLabel;
    private final dev.caduceus.platform.runtime.spend.SpendLedger spend;

    /**
     * @param model the configured model name (the metrics' label; never what a client sent)
     * @param spend where each call's usage is counted, and whether a key may call the model
     */
    ModelCaller(ModelProvider provider, RetryPolicy retries, Redactor redactor, AgentMetrics metrics, String model,
                dev.caduceus.platform.runtime.spend.SpendLedger spend) {
        this.spend = spend;
        this.provider = provider;
        this.retries = retries;
        this.redactor = redactor;
        this.metrics = metrics;
        this.providerLabel = provider.id();
        this.modelLabel = model == null || model.isBlank() ? "default" : model;
    }

    /**
     * Calls the upstream for {@code owner}'s turn, retrying as the policy allows; never throws except on interruption.
     * A key past its budget or tokens per minute is not sent: the call fails with why.
     */
    ModelReply call(ModelRequest request, RunContext ctx, String owner) throws InterruptedException {
        var cancel = ctx.cancellation();
        var refusal = spend.refusal(owner);
        if (refusal.isPresent()) return new ModelReply.Failure(StopReason.UPSTREAM_ERROR, refusal.get().getMessage(), null);
        for (int attempt = 0; ; attempt++) {
            if (cancel.isCancelled()) return new ModelReply.Interrupted(null);
            var stream = new Collector(ctx);
            long started = System.nanoTime();
            metrics.modelCalls().inc(providerLabel, modelLabel);
            try {
                var served = provider instanceof dev.caduceus.platform.runtime.routing.RoutedProvider routed
                        ? routed.serve(request, stream::accept, cancel) : serve(request, stream, cancel);
                if (cancel.isCancelled()) return new ModelReply.Interrupted(stream.text());
                var answer = stream.answer();
                observe(started, stream);
                metrics.tokens(providerLabel, modelLabel, answer.usage());
                if (served == null) {
                    spend.record(owner, dev.caduceus.platform.runtime.routing.RouteTable.DEFAULT, DEFAULT_DEPLOYMENT, answer.usage(), 0);
                    return answer;
                }
                long cost = served.deployment().price().cost(answer.usage());
                spend.record(owner, served.route(), served.deployment().name(), answer.usage(), cost);
                return answer.served(served.route(), served.deployment().name(), cost);
            } catch (ModelException e) {
                metrics.modelErrors().inc(providerLabel, modelLabel, AgentMetrics.statusClass(e.status()),
                        Boolean.toString(e.retryable()));
                if (cancel.isCancelled()) return new ModelReply.Interrupted(stream.text());
                if (e.retryable() && !stream.emitted && attempt < retries.waits().size()) {
                    metrics.modelRetries().inc(providerLabel, modelLabel);
                    if (!sleep(retries.wait(attempt, e.retryAfter()).toMillis(), ctx))
                        return new ModelReply.Interrupted(null);
                    continue;
                }
                return failure(e, stream.text());
            }
        }
    }

    /** The deployment of a host without routes: the configured upstream. */
    static final String DEFAULT_DEPLOYMENT = dev.caduceus.platform.runtime.routing.RouteTable.DEFAULT + "/0";

    private dev.caduceus.platform.runtime.routing.RoutedProvider.Served serve(ModelRequest request, Collector stream,
                                                                          dev.caduceus.spi.tool.Cancellation cancel)
            throws ModelException {
        provider.stream(request, stream::accept, cancel);
        return null;
    }

    private void observe(long started, Collector stream) {
        metrics.modelDuration().recordSince(started, providerLabel, modelLabel);
        if (stream.firstEventNanos != 0)
            metrics.modelFirstToken().observe((stream.firstEventNanos - started) / 1e9, providerLabel, modelLabel);
    }

    private ModelReply failure(ModelException e, String partial) {
        var message = redactor.redact(String.valueOf(e.getMessage()));
        if (dev.caduceus.platform.runtime.routing.RoutedProvider.contextLength(e))
            return new ModelReply.Failure(StopReason.CONTEXT_LENGTH, message, null);
        var prefix = e.status() > 0 ? "Upstream model returned " + e.status() + ": " : "Upstream model request failed: ";
        var text = message.startsWith("Upstream model") ? message : prefix + message;
        return new ModelReply.Failure(StopReason.UPSTREAM_ERROR, text, partial);
    }

    /** Waits, or returns false as soon as the run is cancelled. */
    private static boolean sleep(long millis, RunContext ctx) throws InterruptedException {
        var latch = new CountDownLatch(1);
        try (var hook = ctx.cancellation().onCancel(latch::countDown)) {
            latch.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return !ctx.cancellation().isCancelled();
    }

    /** Collects one call's events and forwards text and reasoning deltas. */
    private static final class Collector {
        private final RunContext ctx;
        private final StringBuilder text = new StringBuilder();
        private final List<ModelEvent.ToolCall> calls = new ArrayList<>();
        private FinishReason finish = FinishReason.STOP;
        private Usage usage;
        private boolean emitted;
        /** When the first text, reasoning or tool call arrived ({@link System#nanoTime()}), or 0. */
        private long firstEventNanos;

        Collector(RunContext ctx) {
            this.ctx = ctx;
        }

        void accept(ModelEvent event) {
            if (firstEventNanos == 0 && (event instanceof ModelEvent.TextDelta || event instanceof ModelEvent.ReasoningDelta
                    || event instanceof ModelEvent.ToolCall)) firstEventNanos = System.nanoTime();
            switch (event) {
                case ModelEvent.TextDelta d -> {
                    if (d.text().isEmpty()) return;
                    text.append(d.text());
                    emitted = true;
                    ctx.emit(new RunEvent.TextDelta(d.text()));
                    // Let the reader of this run (an SSE pump parked on the event log) write the token
                    // now: it was just unparked onto this carrier's queue and would otherwise wait
                    // until this thread drains every chunk already buffered from the upstream.
                    if (Thread.currentThread().isVirtual()) Thread.yield();
                }
                case ModelEvent.ReasoningDelta r -> {
                    if (!r.text().isEmpty()) ctx.emit(new RunEvent.ReasoningDelta(r.text()));
                }
                case ModelEvent.ToolCall c -> {
                    calls.add(c);
                    emitted = true;
                }
                case ModelEvent.UsageReport u -> usage = u.usage();
                case ModelEvent.Finish f -> finish = f.reason();
            }
        }

        String text() {
            return text.isEmpty() ? null : text.toString();
        }

        ModelReply.Answer answer() {
            return new ModelReply.Answer(text.toString(), calls, finish, usage);
        }
    }
}
