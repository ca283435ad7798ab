package dev.caduceus.platform.batch;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code statistics.json}, computed from the checkpoint (all invocations) and the
 * merge. Stateless.
 */
final class Statistics {
    private Statistics() {}

    /** Sums {@code batch_stats[*].tool_stats}: tools called at least once, by count descending. */
    static Map<String, ToolStats.Counts> toolTotals(Checkpoint c) {
        var totals = new LinkedHashMap<String, ToolStats.Counts>();
        for (var b : c.batchTotals())
            b.tools.forEach((name, x) -> {
                var t = totals.computeIfAbsent(name, n -> new ToolStats.Counts());
                t.count += x.count;
                t.success += x.success;
                t.failure += x.failure;
            });
        var sorted = new ArrayList<>(totals.entrySet());
        sorted.removeIf(e -> e.getValue().count == 0);
        sorted.sort(Comparator.comparingInt((Map.Entry<String, ToolStats.Counts> e) -> -e.getValue().count));
        var out = new LinkedHashMap<String, ToolStats.Counts>();
        sorted.forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    /** {@code round(x / (success + failure) * 100, 2)}; 0.0 without completed calls. */
    static double rate(int x, int success, int failure) {
        int total = success + failure;
        if (total == 0) return 0.0;
        return BigDecimal.valueOf(x * 100.0 / total).setScale(2, RoundingMode.HALF_EVEN).doubleValue();
    }

    static ObjectNode build(Checkpoint c, int batchSize, String model, String completedAt,
                            RunFolder.MergeResult merge, Checkpoint.Invocation last, double lastSeconds,
                            double totalSeconds) {
        var o = JsonNodeFactory.instance.objectNode();
        o.put("run_name", c.runName);
        o.put("distribution", c.distribution);
        o.put("total_prompts", c.totalPrompts);
        o.put("total_batches", merge.batchFiles());
        o.put("batch_size", batchSize);
        o.put("model", model);
        o.put("completed_at", completedAt);
        o.put("duration_seconds", round2(totalSeconds));
        var tools = o.putObject("tool_statistics");
        toolTotals(c).forEach((name, t) -> tools.putObject(name).put("count", t.count).put("success", t.success)
                .put("failure", t.failure).put("success_rate", rate(t.success, t.success, t.failure))
                .put("failure_rate", rate(t.failure, t.success, t.failure)));
        int turns = 0, with = 0, without = 0, discarded = 0;
        for (var b : c.batchTotals()) {
            turns += b.assistantTurns;
            with += b.turnsWithReasoning;
            without += b.turnsWithoutReasoning;
        }
        discarded = c.discarded.cardinality();
        o.putObject("reasoning_statistics").put("total_assistant_turns", turns).put("turns_with_reasoning", with)
                .put("turns_without_reasoning", without);
        o.put("discarded_no_reasoning", discarded);
        var discardedDone = (java.util.BitSet) c.discarded.clone();
        discardedDone.and(c.completed);
        o.put("completed_prompts", c.completed.cardinality() - discardedDone.cardinality()); // trajectories kept, not the discarded ones
        o.put("failed_prompts", c.failed.size());
        o.put("trajectories", merge.trajectories());
        o.putObject("filtered").put("invalid_json", merge.invalidJson()).put("unknown_tools", merge.unknownTools())
                .put("duplicates", merge.duplicates());
        o.put("seed", c.seed);
        o.put("invocations", c.invocations.size());
        if (last != null)
            o.putObject("last_invocation").put("started_at", last.startedAt()).put("duration_seconds", round2(lastSeconds))
                    .put("processed", last.processed()).put("failed", last.failed())
                    .put("discarded_no_reasoning", last.discarded());
        return o;
    }

    static double round2(double x) {
        return BigDecimal.valueOf(x).setScale(2, RoundingMode.HALF_EVEN).doubleValue();
    }
}
