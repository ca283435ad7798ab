package dev.caduceus.platform.runtime.agent;

import dev.caduceus.platform.host.metrics.MetricsRegistry;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.metrics.Metrics;
import java.util.Locale;
import java.util.Set;

/**
 * The agent's metrics, made once per boot from the host's {@link Metrics}: runs (by source and
 * outcome), model calls (by provider and configured model), tool calls (by tool and outcome) and
 * approvals. Every label value comes from a bounded set: a run's source is the
 * {@code metadata.source} the starting plugin (or host application) sets, kept while it is a short
 * lower-case identifier among the first {@value #MAX_SOURCES} seen, else {@code other} (the host
 * names no plugin's source), a tool the model named that the turn does not offer is {@code unknown}, the model is
 * the configured name (never what a client sent). Immutable; the instruments are thread-safe.
 */
public record AgentMetrics(Metrics.Counter runsStarted, Metrics.Counter runsFinished, Metrics.Histogram runDuration,
                           Metrics.Counter modelCalls, Metrics.Counter modelErrors, Metrics.Counter modelRetries,
                           Metrics.Histogram modelFirstToken, Metrics.Histogram modelDuration,
                           Metrics.Counter modelTokens, Metrics.Counter toolCalls, Metrics.Histogram toolDuration,
                           Metrics.Counter approvalsAsked, Metrics.Counter approvalsAnswered,
                           Metrics.Counter approvalsTimedOut, Metrics.Counter runsTakenOver, Set<String> sources) {
    /** How many distinct run sources get a label value of their own. */
    static final int MAX_SOURCES = 16;
    private static final java.util.regex.Pattern SOURCE = java.util.regex.Pattern.compile("[a-z][a-z0-9_-]{0,31}");
    /** The label of a tool call whose tool the turn does not offer. */
    static final String UNKNOWN_TOOL = "unknown";

    /** The instruments on {@code metrics} (the host's, {@code caduceus_…}). */
    public static AgentMetrics on(Metrics metrics) {
        return new AgentMetrics(
                metrics.counter("runs_started", "Agent runs started, by source", "source"),
                metrics.counter("runs_finished", "Agent runs finished, by source and outcome", "source", "outcome"),
                metrics.timer("run_duration", "Agent run duration, by source and outcome", "source", "outcome"),
                metrics.counter("model_calls", "Model calls (each attempt), by provider and configured model",
                        "provider", "model"),
                metrics.counter("model_errors", "Failed model calls, by status class (4xx, 5xx, none) and "
                        + "whether they were retryable", "provider", "model", "status_class", "retryable"),
                metrics.counter("model_retries", "Model calls retried after a retryable failure", "provider", "model"),
                metrics.timer("model_time_to_first_token", "Time from a model call to its first text, reasoning "
                        + "or tool call", "provider", "model"),
                metrics.timer("model_call_duration", "Model call duration until the answer is complete",
                        "provider", "model"),
                metrics.counter("model_tokens", "Tokens the model provider reported, by kind (prompt, completion, and reasoning: the part of the completion spent reasoning)",
                        "provider", "model", "kind"),
                metrics.counter("tool_calls", "Tool calls by tool and outcome (ok, error, unknown_tool, "
                        + "invalid_arguments)", "tool", "outcome"),
                metrics.timer("tool_duration", "Tool call duration, by tool", "tool"),
                metrics.counter("approvals_asked", "Approvals a tool asked a person for"),
                metrics.counter("approvals_answered", "Approvals answered, by choice (once, session, always, deny)",
                        "choice"),
                metrics.counter("approvals_timed_out", "Approvals nobody answered in time (denied)"),
                metrics.counter("runs_taken_over", "Durable runs whose server stopped while they were live, taken over at a "
                        + "restart or by another node, by outcome (resumed; interrupted, failed after too many resumptions, "
                        + "cancelled while being stopped)", "outcome"),
                java.util.concurrent.ConcurrentHashMap.newKeySet());
    }

    /** Instruments on a registry nobody scrapes (tests, callers without metrics). */
    public static AgentMetrics none() {
        return on(new MetricsRegistry().host());
    }

    /**
     * The source label of a run: its {@code metadata.source} when it is an identifier and one of the
     * first {@value #MAX_SOURCES} distinct ones, else {@code other}.
     */
    String source(java.util.Map<String, String> metadata) {
        var source = metadata == null ? null : metadata.get("source");
        if (source == null || !SOURCE.matcher(source).matches() || source.equals("other")) return "other";
        if (sources.contains(source)) return source;
        synchronized (sources) {
            if (sources.size() >= MAX_SOURCES) return "other";
            sources.add(source);
            return source;
        }
    }

    /** The outcome label of a finished run: its status, lower case. */
    static String outcome(dev.caduceus.spi.agent.RunStatus status) {
        return status == null ? "unknown" : status.name().toLowerCase(Locale.ROOT);
    }

    /** {@code 4xx}, {@code 5xx}, or {@code none} (no HTTP answer: connection, timeout, parse). */
    static String statusClass(int status) {
        return status >= 100 && status < 600 ? (status / 100) + "xx" : "none";
    }

    /** Counts the tokens of one call's usage. */
    void tokens(String provider, String model, Usage usage) {
        if (usage == null) return;
        if (usage.inputTokens() > 0) modelTokens.add(usage.inputTokens(), provider, model, "prompt");
        if (usage.outputTokens() > 0) modelTokens.add(usage.outputTokens(), provider, model, "completion");
        if (usage.reasoningTokens() > 0) modelTokens.add(usage.reasoningTokens(), provider, model, "reasoning");
    }
}
