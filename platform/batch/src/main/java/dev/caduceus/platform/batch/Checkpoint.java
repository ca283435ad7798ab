package dev.caduceus.platform.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The run state of {@code checkpoint.json}: the four Hermes keys first, then the
 * Caduceus additions. Mutable; the runner changes it and writes it under its lock.
 */
final class Checkpoint {
    static final String FORMAT = "caduceus-batch-1";

    /** One failed prompt, retried on resume. */
    record Failure(int attempts, String error, String lastAttempt) {}

    /** One invocation of the runner. */
    record Invocation(String startedAt, String finishedAt, int processed, int failed, int discarded) {}

    /** The per-batch counters of {@code batch_stats}. */
    static final class BatchStat {
        int processed;
        int skipped;
        int discarded;
        int failed;
        final Map<String, ToolStats.Counts> tools = new TreeMap<>();
        int assistantTurns;
        int turnsWithReasoning;
        int turnsWithoutReasoning;
    }

    final String runName;
    /** Done prompts, sorted as Hermes writes them; discarded prompts count as done, as in Hermes. */
    final Set<Integer> completed = new TreeSet<>();
    final Map<Integer, BatchStat> batchStats = new TreeMap<>();
    String lastUpdated;
    String datasetSha256;
    int totalPrompts;
    String distribution;
    long seed;
    int nextBatchNum;
    final Set<Integer> discarded = new TreeSet<>();
    final Map<Integer, Failure> failed = new TreeMap<>();
    final List<Invocation> invocations = new ArrayList<>();
    String format = FORMAT;

    Checkpoint(String runName) {
        this.runName = runName;
    }

    BatchStat batch(int num) {
        return batchStats.computeIfAbsent(num, n -> new BatchStat());
    }

    ObjectNode toJson() {
        var f = JsonNodeFactory.instance;
        var o = f.objectNode();
        o.put("run_name", runName);
        var done = o.putArray("completed_prompts");
        completed.forEach(done::add);
        var stats = o.putObject("batch_stats");
        batchStats.forEach((num, s) -> {
            var b = stats.putObject(String.valueOf(num));
            b.put("processed", s.processed).put("skipped", s.skipped).put("discarded_no_reasoning", s.discarded)
                    .put("failed", s.failed);
            var tools = b.putObject("tool_stats");
            s.tools.forEach((name, c) -> tools.putObject(name).put("count", c.count).put("success", c.success)
                    .put("failure", c.failure));
            b.putObject("reasoning_stats").put("total_assistant_turns", s.assistantTurns)
                    .put("turns_with_reasoning", s.turnsWithReasoning)
                    .put("turns_without_reasoning", s.turnsWithoutReasoning);
        });
        o.put("last_updated", lastUpdated);
        o.put("format", format);
        o.put("dataset_sha256", datasetSha256);
        o.put("total_prompts", totalPrompts);
        o.put("distribution", distribution);
        o.put("seed", seed);
        o.put("next_batch_num", nextBatchNum);
        var disc = o.putArray("discarded_prompts");
        discarded.forEach(disc::add);
        var fails = o.putObject("failed_prompts");
        failed.forEach((index, x) -> fails.putObject(String.valueOf(index)).put("attempts", x.attempts())
                .put("error", x.error()).put("last_attempt", x.lastAttempt()));
        var inv = o.putArray("invocations");
        for (var i : invocations)
            inv.addObject().put("started_at", i.startedAt()).put("finished_at", i.finishedAt())
                    .put("processed", i.processed()).put("failed", i.failed()).put("discarded_no_reasoning", i.discarded());
        return o;
    }

    /** Reads a checkpoint written by Caduceus or by Hermes (which has only the first four keys). */
    static Checkpoint fromJson(JsonNode o, String runName) {
        var c = new Checkpoint(o.path("run_name").asText(runName));
        o.path("completed_prompts").forEach(n -> c.completed.add(n.asInt()));
        for (var e : o.path("batch_stats").properties()) {
            int num;
            try {
                num = Integer.parseInt(e.getKey());
            } catch (NumberFormatException ex) {
                continue;
            }
            var s = c.batch(num);
            var b = e.getValue();
            s.processed = b.path("processed").asInt();
            s.skipped = b.path("skipped").asInt();
            s.discarded = b.path("discarded_no_reasoning").asInt();
            s.failed = b.path("failed").asInt();
            for (var t : b.path("tool_stats").properties()) {
                var counts = new ToolStats.Counts();
                counts.count = t.getValue().path("count").asInt();
                counts.success = t.getValue().path("success").asInt();
                counts.failure = t.getValue().path("failure").asInt();
                s.tools.put(t.getKey(), counts);
            }
            var r = b.path("reasoning_stats");
            s.assistantTurns = r.path("total_assistant_turns").asInt();
            s.turnsWithReasoning = r.path("turns_with_reasoning").asInt();
            s.turnsWithoutReasoning = r.path("turns_without_reasoning").asInt();
        }
        c.lastUpdated = o.path("last_updated").asText(null);
        c.format = o.path("format").asText(null);
        c.datasetSha256 = o.path("dataset_sha256").asText(null);
        c.totalPrompts = o.path("total_prompts").asInt();
        c.distribution = o.path("distribution").asText(null);
        c.seed = o.path("seed").asLong();
        c.nextBatchNum = o.path("next_batch_num").asInt();
        o.path("discarded_prompts").forEach(n -> c.discarded.add(n.asInt()));
        for (var e : o.path("failed_prompts").properties()) {
            try {
                var v = e.getValue();
                c.failed.put(Integer.parseInt(e.getKey()), new Failure(v.path("attempts").asInt(1),
                        v.path("error").asText(""), v.path("last_attempt").asText("")));
            } catch (NumberFormatException ignored) {
                // a key that is no index: ignore it
            }
        }
        for (var i : o.path("invocations"))
            c.invocations.add(new Invocation(i.path("started_at").asText(), i.path("finished_at").asText(null),
                    i.path("processed").asInt(), i.path("failed").asInt(), i.path("discarded_no_reasoning").asInt()));
        return c;
    }

    /** Whether the checkpoint was made by this format for exactly this dataset (its SHA-256); else resume matches prompts by content. */
    boolean matches(String sha256) {
        return FORMAT.equals(format) && sha256.equals(datasetSha256);
    }

    /** A copy of the failures map (for the run's own bookkeeping). */
    Map<Integer, Failure> failures() {
        return new LinkedHashMap<>(failed);
    }
}
