package dev.caduceus.platform.runtime.spend;

import static java.util.Objects.requireNonNull;

import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.webhooks.DeploymentWebhooks;
import dev.caduceus.platform.host.webhooks.WebhookEvent;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.metrics.Metrics;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The spend of every model call: {@link #record} adds a call's tokens and cost to its key's, route's and
 * deployment's sum of the day in memory (nothing is written per call, except for a key with a budget, whose calls
 * are written at once so that every node's next check sees them); {@link #flush} adds the sums to
 * {@code model_usage} (the host calls it every second and when it stops). {@link #refusal} says whether a key may call
 * the model now: under its tokens per minute (counted on this node) and under its budget (the period's rows of every
 * node plus this node's unwritten sums). The first time in a period a key's spend reaches 80 % of its budget, the
 * ledger logs it, counts {@code caduceus_key_budget_warnings_total{key}} and sends the {@code key.budget_warning}
 * webhook (once per key and period, on every node: its message id is derived from both).
 *
 * <p>Threading: thread-safe. {@link #record} takes no lock but a map bin's; a flush and a budget read exclude each
 * other, so a budget never misses the sums being written.
 */
public final class SpendLedger implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SpendLedger.class);
    private static final BigDecimal PICO = BigDecimal.ONE.movePointRight(12);

    /** One sum's identity: whose, which UTC day, which route and deployment. */
    record Key(String owner, String day, String route, String deployment) {}

    /** Sums of calls. Immutable. */
    record Sums(long calls, long input, long cached, long output, long reasoning, long costPico) {
        static Sums of(Usage u, long costPico) {
            return new Sums(1, u.inputTokens(), u.cachedTokens(), u.outputTokens(), u.reasoningTokens(), costPico);
        }

        Sums plus(Sums o) {
            return new Sums(calls + o.calls, input + o.input, cached + o.cached, output + o.output,
                    reasoning + o.reasoning, costPico + o.costPico);
        }
    }

    private final Database database; // null: memory only (the batch runner)
    private final Function<String, SpendLimits> limits;
    private final Clock clock;
    private final DeploymentWebhooks webhooks; // may be null
    private final Metrics.Counter cost;
    private final Metrics.Counter warnings;
    private final Metrics.Counter refused;
    private final ConcurrentHashMap<Key, Sums> pending = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, TokenMinute> minutes = new ConcurrentHashMap<>();
    private final Set<String> warned = ConcurrentHashMap.newKeySet(); // owner + period start
    private final ReentrantLock flushing = new ReentrantLock();

    /**
     * @param database where the sums go ({@code model_usage}); null keeps them in memory only
     * @param limits   a key's limits by owner (the admin key's: none)
     */
    public SpendLedger(Database database, Function<String, SpendLimits> limits, Clock clock, Metrics metrics,
                       DeploymentWebhooks webhooks) {
        this.database = database;
        this.limits = requireNonNull(limits, "limits");
        this.clock = requireNonNull(clock, "clock");
        this.webhooks = webhooks;
        this.cost = metrics.counter("model_cost", "What model calls cost in USD (the deployments' price), by key and route",
                "key", "route");
        this.warnings = metrics.counter("key_budget_warnings", "Keys that reached 80 % of their budget in a period", "key");
        this.refused = metrics.counter("key_spend_refusals", "Turns refused before the model was called: budget_exceeded "
                + "or tokens per minute (tpm), by key", "key", "reason");
    }

    /** A ledger that writes nowhere and limits no one (tests, and hosts without a database). */
    public static SpendLedger inMemory(Clock clock) {
        return new SpendLedger(null, owner -> SpendLimits.NONE, clock, new dev.caduceus.platform.host.metrics.MetricsRegistry().host(), null);
    }

    /** Adds one model call's {@code usage}, priced {@code costPico}, to {@code owner}'s sums. */
    public void record(String owner, String route, String deployment, Usage usage, long costPico) {
        if (usage == null) return;
        var day = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC).toString();
        pending.merge(new Key(owner, day, route, deployment), Sums.of(usage, costPico), Sums::plus);
        if (costPico > 0) cost.add(costPico / 1e12, owner, route);
        var limit = limits.apply(owner);
        if (usage.totalTokens() > 0 && limit.tokensPerMinute() > 0)
            minutes.computeIfAbsent(owner, o -> new TokenMinute()).add(clock.millis(), usage.totalTokens());
        if (limit.budget().isPresent() && costPico > 0) flush(); // the other nodes' next budget check sees it at once
    }

    /**
     * Why {@code owner} may not call the model now, or empty: {@code TOKEN_LIMIT} when its turns used its tokens per
     * minute, {@code BUDGET_EXCEEDED} when it spent its budget for the period; each with when to try again.
     */
    public Optional<RunRejectedException> refusal(String owner) {
        var limit = limits.apply(owner);
        if (limit.none()) return Optional.empty();
        var now = clock.instant();
        if (limit.tokensPerMinute() > 0) {
            var minute = minutes.get(owner);
            if (minute != null) {
                long free = minute.freeAt(now.toEpochMilli(), limit.tokensPerMinute());
                if (free > now.toEpochMilli()) {
                    refused.inc(owner, "tpm");
                    return Optional.of(new RunRejectedException(RunRejectedException.Reason.TOKEN_LIMIT, "API key '" + owner
                            + "' used its " + limit.tokensPerMinute() + " model tokens per minute; try again shortly",
                            Duration.ofMillis(free - now.toEpochMilli())));
                }
            }
        }
        if (limit.budget().isPresent()) {
            var budget = limit.budget().get();
            var start = budget.period().start(now);
            long spent = spentSince(owner, start);
            long cap = budget.pico();
            if (spent >= cap - cap / 5 && warned.add(owner + "@" + start)) warn(owner, budget, start, spent);
            if (spent >= cap) {
                refused.inc(owner, "budget");
                var end = budget.period().end(now);
                return Optional.of(new RunRejectedException(RunRejectedException.Reason.BUDGET_EXCEEDED, "API key '" + owner
                        + "' spent its budget of " + budget.describe() + " (" + usd(spent) + " USD since " + start
                        + "); it renews at " + end, Duration.between(now, end)));
            }
        }
        return Optional.empty();
    }

    /** What {@code owner} spent since {@code start} (whole UTC days), in picodollars: written rows and unwritten sums. */
    public long spentSince(String owner, Instant start) {
        var from = LocalDate.ofInstant(start, ZoneOffset.UTC).toString();
        flushing.lock();
        try {
            long spent = 0;
            for (var e : pending.entrySet())
                if (e.getKey().owner().equals(owner) && e.getKey().day().compareTo(from) >= 0) spent += e.getValue().costPico();
            if (database != null)
                spent += database.read(sql -> sql.queryOne("SELECT COALESCE(SUM(cost_pico), 0) FROM model_usage "
                        + "WHERE owner = ? AND day >= ?", r -> r.getLong(1), owner, from)).orElse(0L);
            return spent;
        } finally {
            flushing.unlock();
        }
    }

    /** Adds the unwritten sums to {@code model_usage}; on failure they stay to be written the next time. */
    public void flush() {
        if (database == null || pending.isEmpty()) return;
        flushing.lock();
        try {
            var batch = new ArrayList<Map.Entry<Key, Sums>>();
            for (var key : pending.keySet()) {
                var sums = pending.remove(key);
                if (sums != null) batch.add(Map.entry(key, sums));
            }
            try {
                database.write(sql -> {
                    for (var e : batch) {
                        var k = e.getKey();
                        var s = e.getValue();
                        sql.update("INSERT INTO model_usage (owner, day, route, deployment, calls, input_tokens, cached_tokens, "
                                        + "output_tokens, reasoning_tokens, cost_pico) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                                        + "ON CONFLICT (owner, day, route, deployment) DO UPDATE SET "
                                        + "calls = model_usage.calls + excluded.calls, "
                                        + "input_tokens = model_usage.input_tokens + excluded.input_tokens, "
                                        + "cached_tokens = model_usage.cached_tokens + excluded.cached_tokens, "
                                        + "output_tokens = model_usage.output_tokens + excluded.output_tokens, "
                                        + "reasoning_tokens = model_usage.reasoning_tokens + excluded.reasoning_tokens, "
                                        + "cost_pico = model_usage.cost_pico + excluded.cost_pico",
                                k.owner(), k.day(), k.route(), k.deployment(), s.calls(), s.input(), s.cached(), s.output(),
                                s.reasoning(), s.costPico());
                    }
                    return null;
                });
            } catch (RuntimeException e) {
                batch.forEach(entry -> pending.merge(entry.getKey(), entry.getValue(), Sums::plus));
                LOG.warn("Could not write model usage ({} sums kept for the next try): {}", batch.size(), e.getMessage());
            }
        } finally {
            flushing.unlock();
        }
    }

    /** Writes what is left (the host's last step before the database closes). */
    @Override
    public void close() {
        flush();
    }

    private void warn(String owner, dev.caduceus.platform.host.auth.Budget budget, Instant start, long spent) {
        warnings.inc(owner);
        LOG.warn("API key '{}' spent {} USD, 80 % or more of its budget of {}", owner, usd(spent), budget.describe());
        if (webhooks == null || database == null || !webhooks.enabled()) return;
        var data = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("key", owner)
                .put("budget_usd", budget.usd().toPlainString()).put("period", budget.period().wireName())
                .put("period_start", start.toString()).put("spent_usd", usd(spent));
        try {
            database.write(sql -> {
                webhooks.enqueue(sql, new WebhookEvent("key.budget_warning", clock.instant(), owner,
                        "budget:" + owner + ":" + start.getEpochSecond(), data), null);
                return null;
            });
        } catch (RuntimeException e) {
            LOG.warn("Could not queue the key.budget_warning webhook of '{}': {}", owner, e.getMessage());
        }
    }

    /** Picodollars as a plain USD amount ({@code 0.0125}). */
    public static String usd(long pico) {
        return new BigDecimal(pico).divide(PICO).stripTrailingZeros().toPlainString();
    }

    /** One key's tokens of the last minute, by call end. */
    private static final class TokenMinute {
        private final ArrayDeque<long[]> calls = new ArrayDeque<>();
        private long tokens;

        synchronized void add(long nowMillis, long n) {
            calls.addLast(new long[] {nowMillis, n});
            tokens += n;
        }

        /** When its minute's tokens drop under {@code tpm} (ms); {@code nowMillis} or earlier when they are. */
        synchronized long freeAt(long nowMillis, long tpm) {
            while (!calls.isEmpty() && calls.peekFirst()[0] <= nowMillis - 60_000) tokens -= calls.removeFirst()[1];
            if (tokens < tpm) return nowMillis;
            long left = tokens;
            for (var c : calls) {
                left -= c[1];
                if (left < tpm) return c[0] + 60_000;
            }
            return nowMillis + 60_000;
        }
    }
}
