package dev.caduceus.platform.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The output directory of one run: the batch files in numeric order, the checkpoint,
 * the merged {@code trajectories.jsonl} without invalid JSON, tombstones, unknown tools and
 * duplicates, and the content-matching scan of a resume. Stateless apart from its path.
 */
record RunFolder(Path dir) {
    private static final Pattern BATCH_FILE = Pattern.compile("batch_(\\d+)\\.jsonl");

    Path checkpoint() { return dir.resolve("checkpoint.json"); }

    Path trajectories() { return dir.resolve("trajectories.jsonl"); }

    Path statistics() { return dir.resolve("statistics.json"); }

    Path failed() { return dir.resolve("failed.jsonl"); }

    Path log() { return dir.resolve("batch.log"); }

    /** Tombstones of prompts discarded for lack of reasoning: {@code {"prompt_index", "discarded", "prompt"}}. */
    Path discarded() { return dir.resolve("discarded.jsonl"); }

    Path batch(int num) { return dir.resolve("batch_" + num + ".jsonl"); }

    /** The batch files by number (numeric order, not lexicographic). */
    TreeMap<Integer, Path> batchFiles() throws IOException {
        var out = new TreeMap<Integer, Path>();
        if (!Files.isDirectory(dir)) return out;
        try (var files = Files.list(dir)) {
            for (var p : (Iterable<Path>) files::iterator) {
                var m = BATCH_FILE.matcher(p.getFileName().toString());
                if (m.matches()) out.put(Integer.parseInt(m.group(1)), p);
            }
        }
        return out;
    }

    boolean hasResults() throws IOException {
        return Files.exists(checkpoint()) || Files.exists(discarded()) || !batchFiles().isEmpty();
    }

    /** {@code --overwrite}: the run's result files, nothing else. */
    void deleteResults() throws IOException {
        for (var p : batchFiles().values()) Files.deleteIfExists(p);
        for (var p : List.of(checkpoint(), trajectories(), statistics(), failed(), discarded())) Files.deleteIfExists(p);
    }

    /**
     * The trimmed prompts recorded so far, each mapped to whether it was discarded: the first
     * {@code human} value of each trajectory in the batch files, and the {@code prompt} of each
     * tombstone in {@code discarded.jsonl} or, as runs of the previous release wrote them, in a batch file.
     */
    java.util.Map<String, Boolean> recordedPrompts(ObjectMapper json) throws IOException {
        var out = new java.util.HashMap<String, Boolean>();
        var files = new ArrayList<>(batchFiles().values());
        if (Files.exists(discarded())) files.add(discarded());
        for (var file : files)
            for (var line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                var node = parse(line, json);
                if (node == null) continue;
                var prompt = promptOf(node);
                if (prompt != null) out.merge(prompt.strip(), node.has("discarded"), Boolean::logicalAnd);
            }
        return out;
    }

    /** Starts this invocation's {@code batch.log}: the previous ones move to {@code batch.log.1} … {@code .9}. */
    void rotateLog() throws IOException {
        if (!Files.exists(log())) return;
        Files.deleteIfExists(dir.resolve("batch.log.9"));
        for (int n = 8; n >= 1; n--) {
            var from = dir.resolve("batch.log." + n);
            if (Files.exists(from)) Files.move(from, dir.resolve("batch.log." + (n + 1)));
        }
        Files.move(log(), dir.resolve("batch.log.1"));
    }

    /** What the merge dropped, by filter. */
    record MergeResult(int trajectories, int batchFiles, int invalidJson, int discarded, int unknownTools,
                       int duplicates) {}

    /**
     * Rebuilds {@code trajectories.jsonl} from every batch file in numeric order, copying kept lines
     * verbatim, and renames it into place atomically.
     */
    MergeResult merge(Set<String> registeredTools, ObjectMapper json) throws IOException {
        var files = batchFiles();
        var seen = new HashSet<String>();
        var out = new StringBuilder();
        int kept = 0, invalid = 0, discarded = 0, unknown = 0, duplicates = 0;
        for (var file : files.values()) {
            for (var line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank()) continue;
                var node = parse(line, json);
                if (node == null || !node.isObject()) {
                    invalid++;
                    continue;
                }
                if (node.has("discarded")) { // a tombstone of the previous release, inside a batch file
                    discarded++;
                    continue;
                }
                boolean hallucinated = false;
                for (var e : node.path("tool_stats").properties())
                    if (e.getValue().path("count").asInt() > 0 && !registeredTools.contains(e.getKey())) hallucinated = true;
                if (hallucinated) {
                    unknown++;
                    continue;
                }
                var key = node.path("prompt_index").asText() + "\u0000" + promptOf(node);
                if (!seen.add(key)) {
                    duplicates++;
                    continue;
                }
                out.append(line).append('\n');
                kept++;
            }
        }
        AtomicFiles.replace(trajectories(), out.toString());
        return new MergeResult(kept, files.size(), invalid, discarded, unknown, duplicates);
    }

    static String promptOf(JsonNode node) {
        if (node.has("discarded")) return node.path("prompt").isTextual() ? node.path("prompt").asText() : null;
        for (var c : node.path("conversations"))
            if ("human".equals(c.path("from").asText())) return c.path("value").asText();
        return null;
    }

    private static JsonNode parse(String line, ObjectMapper json) {
        try {
            return json.readTree(line);
        } catch (IOException e) {
            return null;
        }
    }

    /** Every line of the batch files, for tests and tools. */
    List<String> allLines() throws IOException {
        var out = new ArrayList<String>();
        for (var file : batchFiles().values()) out.addAll(Files.readAllLines(file, StandardCharsets.UTF_8));
        return out;
    }
}
