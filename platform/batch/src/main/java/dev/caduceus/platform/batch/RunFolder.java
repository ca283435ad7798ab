package dev.caduceus.platform.batch;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
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

    /**
     * The numbers of the batch files, ascending (numeric order, not lexicographic): 4 bytes a file where a map of
     * paths took ~180, which a run of 100,000 one-prompt batches could not spare in the default heap at its merge.
     */
    int[] batchNumbers() throws IOException {
        if (!Files.isDirectory(dir)) return new int[0];
        try (var files = Files.list(dir)) {
            return files.map(p -> BATCH_FILE.matcher(p.getFileName().toString())).filter(Matcher::matches)
                    .mapToInt(m -> Integer.parseInt(m.group(1))).sorted().toArray();
        }
    }

    boolean hasResults() throws IOException {
        return Files.exists(checkpoint()) || Files.exists(discarded()) || batchNumbers().length > 0;
    }

    /** {@code --overwrite}: the run's result files, nothing else. */
    void deleteResults() throws IOException {
        for (int num : batchNumbers()) Files.deleteIfExists(batch(num));
        for (var p : List.of(checkpoint(), trajectories(), statistics(), failed(), discarded())) Files.deleteIfExists(p);
    }

    /**
     * The prompts recorded so far, by the fingerprint of their trimmed text: the first {@code human}
     * value of each trajectory in the batch files, and the {@code prompt} of each tombstone in
     * {@code discarded.jsonl} or, as runs of the previous release wrote them, in a batch file. Read a
     * line at a time: a run of a million prompts is never held in memory.
     */
    RecordedPrompts recordedPrompts(ObjectMapper json) throws IOException {
        var recorded = new RecordedPrompts(new LongHashSet(), new LongHashSet());
        var numbers = batchNumbers();
        boolean tombstones = Files.exists(discarded());
        for (int i = 0; i < numbers.length + (tombstones ? 1 : 0); i++)
            try (var in = AtomicFiles.lines(i < numbers.length ? batch(numbers[i]) : discarded())) {
                for (String line; (line = in.readLine()) != null; ) {
                    var facts = TrajectoryLine.read(line, Set.of(), json.getFactory());
                    if (facts == null || facts.prompt() == null) continue;
                    long key = PromptFingerprint.of(facts.prompt().strip());
                    recorded.all().add(key);
                    if (!facts.tombstone()) recorded.kept().add(key);
                }
            }
        return recorded;
    }

    /**
     * Fingerprints ({@link PromptFingerprint#of(String)}) of the trimmed prompts of a folder: {@code all}
     * recorded, and those {@code kept} as a trajectory at least once (the others were only discarded).
     */
    record RecordedPrompts(LongHashSet all, LongHashSet kept) {
        boolean contains(String trimmedPrompt) {
            return all.contains(PromptFingerprint.of(trimmedPrompt));
        }

        /** Recorded, and every record of it is a tombstone. */
        boolean discarded(String trimmedPrompt) {
            long key = PromptFingerprint.of(trimmedPrompt);
            return all.contains(key) && !kept.contains(key);
        }
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
     * verbatim, and renames it into place atomically. Streams: a line at a time in, through a buffer
     * out, duplicates told by a fingerprint of {@code (prompt_index, prompt)}, so the memory it takes
     * does not grow with the run beyond 16 bytes a trajectory. A merge that fails leaves the previous
     * {@code trajectories.jsonl}, the batch files and the checkpoint as they were.
     */
    MergeResult merge(Set<String> registeredTools, ObjectMapper json) throws IOException {
        var numbers = batchNumbers();
        var seen = new LongHashSet();
        var counts = new int[Verdict.values().length];
        AtomicFiles.replace(trajectories(), out -> {
            for (int num : numbers)
                try (var in = AtomicFiles.lines(batch(num))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        var verdict = verdict(line, registeredTools, seen, json);
                        counts[verdict.ordinal()]++;
                        if (verdict == Verdict.KEEP) {
                            out.write(line);
                            out.write('\n');
                        }
                    }
                }
        });
        return new MergeResult(counts[Verdict.KEEP.ordinal()], numbers.length, counts[Verdict.INVALID_JSON.ordinal()],
                counts[Verdict.TOMBSTONE.ordinal()], counts[Verdict.UNKNOWN_TOOLS.ordinal()],
                counts[Verdict.DUPLICATE.ordinal()]);
    }

    /** What the merge does with one line of a batch file. */
    private enum Verdict { KEEP, BLANK, INVALID_JSON, TOMBSTONE, UNKNOWN_TOOLS, DUPLICATE }

    private static Verdict verdict(String line, Set<String> registeredTools, LongHashSet seen, ObjectMapper json) {
        if (line.isBlank()) return Verdict.BLANK;
        var facts = TrajectoryLine.read(line, registeredTools, json.getFactory());
        if (facts == null) return Verdict.INVALID_JSON;
        if (facts.tombstone()) return Verdict.TOMBSTONE; // of the previous release, inside a batch file
        if (facts.unknownTool()) return Verdict.UNKNOWN_TOOLS;
        var key = PromptFingerprint.of(facts.promptIndex(), String.valueOf(facts.prompt()));
        return seen.add(key) ? Verdict.KEEP : Verdict.DUPLICATE;
    }
}
