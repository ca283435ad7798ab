package dev.caduceus.platform.batch;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.support.json.ToolJson;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
        /** This entry as {@link #write} writes it, until {@link #changed}: most batches are done and unchanging. */
        private String written;

        /** To call after changing a counter. */
        void changed() {
            written = null;
        }
    }

    final String runName;
    /**
     * Done prompts by index (written in order, as Hermes writes them); discarded prompts count as done, as
     * in Hermes. Bits, not a set of integers: a million done prompts take 125 KB.
     */
    final BitSet completed = new BitSet();
    /** The counters of the batches still running (or run again), by batch number; the rest are {@link #finished}. */
    private final Map<Integer, BatchStat> batchStats = new TreeMap<>();
    /** The counters of the batches that are done, compactly: a million one-prompt batches did not fit as objects. */
    private FinishedBatches finished = new FinishedBatches();
    String lastUpdated;
    String datasetSha256;
    int totalPrompts;
    String distribution;
    long seed;
    int nextBatchNum;
    final BitSet discarded = new BitSet();
    final Map<Integer, Failure> failed = new TreeMap<>();
    final List<Invocation> invocations = new ArrayList<>();
    String format = FORMAT;

    Checkpoint(String runName) {
        this.runName = runName;
    }

    /** Batch {@code num}'s counters to change: a running batch's, a finished one's taken back, or new ones. */
    BatchStat batch(int num) {
        var running = batchStats.get(num);
        if (running != null) return running;
        var again = finished.remove(num);
        var stat = again != null ? again : new BatchStat();
        batchStats.put(num, stat);
        return stat;
    }

    /** Batch {@code num} is done: its counters go to the compact store. */
    void finish(int num) {
        var stat = batchStats.remove(num);
        if (stat != null) finished.add(num, stat);
    }

    /** The counters to sum for the run's totals: each running batch's and the finished batches' sum. */
    List<BatchStat> batchTotals() {
        var all = new ArrayList<>(batchStats.values());
        all.add(finished.total());
        return all;
    }

    /** How many batches are running (their counters are objects, not yet in the compact store). */
    int runningCount() {
        return batchStats.size();
    }

    /** How many batches have an entry in {@code batch_stats}. */
    int batchCount() {
        return batchStats.size() + finished.size();
    }

    /** Takes over {@code from}'s batch counters (a resume's previous checkpoint); this one has none yet. */
    void adoptBatches(Checkpoint from) {
        if (batchCount() != 0) throw new IllegalStateException("this checkpoint has batch counters already");
        batchStats.putAll(from.batchStats);
        finished = from.finished;
        from.batchStats.clear();
        from.finished = new FinishedBatches();
    }

    /** The checkpoint with its three long members left empty, each in its place. */
    private ObjectNode smallFields() {
        var o = JsonNodeFactory.instance.objectNode();
        o.put("run_name", runName);
        o.putArray("completed_prompts");
        o.putObject("batch_stats");
        o.put("last_updated", lastUpdated);
        o.put("format", format);
        o.put("dataset_sha256", datasetSha256);
        o.put("total_prompts", totalPrompts);
        o.put("distribution", distribution);
        o.put("seed", seed);
        o.put("next_batch_num", nextBatchNum);
        o.putArray("discarded_prompts");
        var fails = o.putObject("failed_prompts");
        failed.forEach((index, x) -> fails.putObject(String.valueOf(index)).put("attempts", x.attempts())
                .put("error", x.error()).put("last_attempt", x.lastAttempt()));
        var inv = o.putArray("invocations");
        for (var i : invocations)
            inv.addObject().put("started_at", i.startedAt()).put("finished_at", i.finishedAt())
                    .put("processed", i.processed()).put("failed", i.failed()).put("discarded_no_reasoning", i.discarded());
        return o;
    }

    private static ObjectNode statJson(BatchStat s) {
        var b = JsonNodeFactory.instance.objectNode();
        b.put("processed", s.processed).put("skipped", s.skipped).put("discarded_no_reasoning", s.discarded)
                .put("failed", s.failed);
        var tools = b.putObject("tool_stats");
        s.tools.forEach((name, c) -> tools.putObject(name).put("count", c.count).put("success", c.success)
                .put("failure", c.failure));
        b.putObject("reasoning_stats").put("total_assistant_turns", s.assistantTurns)
                .put("turns_with_reasoning", s.turnsWithReasoning)
                .put("turns_without_reasoning", s.turnsWithoutReasoning);
        return b;
    }

    /** Reads one entry of {@code batch_stats}; a key that is no batch number is ignored. */
    private void readBatchStat(String key, JsonNode b) {
        int num;
        try {
            num = Integer.parseInt(key);
        } catch (NumberFormatException ex) {
            return;
        }
        var s = batch(num);
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
        finish(num); // a checkpoint's batches are done until a run takes one up again
    }

    /** Reads a checkpoint written by Caduceus or by Hermes (which has only the first four keys). */
    static Checkpoint fromJson(JsonNode o, String runName) {
        var c = new Checkpoint(o.path("run_name").asText(runName));
        o.path("completed_prompts").forEach(n -> addIndex(c.completed, n.asInt()));
        for (var e : o.path("batch_stats").properties()) c.readBatchStat(e.getKey(), e.getValue());
        c.lastUpdated = o.path("last_updated").asText(null);
        c.format = o.path("format").asText(null);
        c.datasetSha256 = o.path("dataset_sha256").asText(null);
        c.totalPrompts = o.path("total_prompts").asInt();
        c.distribution = o.path("distribution").asText(null);
        c.seed = o.path("seed").asLong();
        c.nextBatchNum = o.path("next_batch_num").asInt();
        o.path("discarded_prompts").forEach(n -> addIndex(c.discarded, n.asInt()));
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

    /**
     * Reads {@code checkpoint.json} as {@link #fromJson} does, streaming the three long members
     * ({@code completed_prompts} and {@code discarded_prompts} straight into bits, {@code batch_stats} an entry at a
     * time) instead of holding the file, and a tree of it, in memory: a tree took ~1 KB per batch.
     */
    static Checkpoint read(Path file, String runName, ObjectMapper json) throws IOException {
        var rest = JsonNodeFactory.instance.objectNode();
        var completed = new BitSet();
        var discarded = new BitSet();
        var stats = new Checkpoint(runName);
        try (var parser = json.getFactory().createParser(file.toFile())) {
            if (parser.nextToken() != JsonToken.START_OBJECT) throw new IOException("not a JSON object");
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                var name = parser.currentName();
                var value = parser.nextToken();
                if ((name.equals("completed_prompts") || name.equals("discarded_prompts")) && value == JsonToken.START_ARRAY) {
                    var into = name.equals("completed_prompts") ? completed : discarded;
                    for (var t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
                        if (t == null) throw new IOException("checkpoint.json ends inside " + name);
                        if (t.isStructStart()) {
                            parser.skipChildren();
                            addIndex(into, 0); // what asInt() makes of a container, as fromJson reads it
                        } else {
                            addIndex(into, parser.getValueAsInt(0));
                        }
                    }
                } else if (name.equals("batch_stats") && value == JsonToken.START_OBJECT) {
                    while (parser.nextToken() == JsonToken.FIELD_NAME) {
                        var key = parser.currentName();
                        parser.nextToken();
                        JsonNode entry = parser.readValueAsTree();
                        stats.readBatchStat(key, entry == null ? JsonNodeFactory.instance.missingNode() : entry);
                    }
                } else {
                    rest.set(name, parser.readValueAsTree());
                }
            }
        }
        var c = fromJson(rest, runName);
        c.completed.or(completed);
        c.discarded.or(discarded);
        c.adoptBatches(stats);
        return c;
    }

    /** Prompt indexes are dataset line numbers: one outside {@code [0, MAX_INDEX)} (a hand-edited file) is ignored. */
    static final int MAX_INDEX = 1 << 27;

    private static void addIndex(BitSet set, int index) {
        if (index >= 0 && index < MAX_INDEX) set.set(index);
    }

    /**
     * Writes this checkpoint as {@code ToolJson.indented} writes JSON (Python's {@code indent=2}), without
     * building it as one tree: the index lists and the batch stats one entry at a time, for the runner's
     * frequent rewrites.
     */
    void write(Writer out) throws IOException {
        var whole = smallFields();
        out.write('{');
        boolean first = true;
        for (var field : whole.properties()) {
            out.write(first ? "\n  " : ",\n  ");
            first = false;
            out.write(ToolJson.compact(JsonNodeFactory.instance.textNode(field.getKey())));
            out.write(": ");
            switch (field.getKey()) {
                case "completed_prompts" -> writeIndexes(completed, out);
                case "discarded_prompts" -> writeIndexes(discarded, out);
                case "batch_stats" -> writeBatchStats(out);
                default -> out.write(nested(field.getValue(), 1));
            }
        }
        out.write(first ? "}" : "\n}");
    }

    private static void writeIndexes(BitSet indexes, Writer out) throws IOException {
        if (indexes.isEmpty()) {
            out.write("[]");
            return;
        }
        boolean first = true;
        out.write('[');
        for (int i = indexes.nextSetBit(0); i >= 0; i = indexes.nextSetBit(i + 1)) {
            out.write(first ? "\n    " : ",\n    ");
            first = false;
            out.write(Integer.toString(i));
        }
        out.write("\n  ]");
    }

    /** The running and the finished batches' entries, merged in batch number order. */
    private void writeBatchStats(Writer out) throws IOException {
        if (batchCount() == 0) {
            out.write("{}");
            return;
        }
        var running = batchStats.entrySet().iterator();
        var next = new Object() {
            Map.Entry<Integer, BatchStat> entry = running.hasNext() ? running.next() : null;
            boolean first = true;

            void write(int num, String text) throws IOException {
                out.write(first ? "\n    \"" : ",\n    \"");
                first = false;
                out.write(Integer.toString(num));
                out.write("\": ");
                out.write(text);
            }

            void runningBefore(long num) throws IOException {
                for (; entry != null && entry.getKey() < num; entry = running.hasNext() ? running.next() : null) {
                    var stat = entry.getValue();
                    if (stat.written == null) stat.written = entryText(stat);
                    write(entry.getKey(), stat.written);
                }
            }
        };
        out.write('{');
        finished.forEach(Checkpoint::entryText, (num, text) -> {
            next.runningBefore(num);
            next.write(num, text);
        });
        next.runningBefore(Long.MAX_VALUE);
        out.write("\n  }");
    }

    /** One {@code batch_stats} entry's text, as the file has it. */
    private static String entryText(BatchStat stat) {
        return nested(statJson(stat), 2);
    }

    /** {@code node} indented as a value {@code depth} levels down. */
    private static String nested(JsonNode node, int depth) {
        return ToolJson.indented(node).replace("\n", "\n" + "  ".repeat(depth)); // raw newlines are only layout
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
