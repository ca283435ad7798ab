package dev.caduceus.platform.batch;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.util.stream.IntStream;

/**
 * What a run still has to do: with a Caduceus checkpoint for this exact dataset, the
 * entries not in {@code completed_prompts} ∪ {@code discarded_prompts}; otherwise content matching
 * against the prompts recorded in the batch files and {@code discarded.jsonl} (tombstones inside batch
 * files, as the previous release wrote them, count too). Carries the previous state into the new
 * checkpoint. Stateless.
 */
final class Resume {
    private Resume() {}

    /** The prompt indexes still to run, in the dataset's order. */
    static int[] remaining(Dataset dataset, Checkpoint previous, RunFolder folder, ObjectMapper json,
                                         Checkpoint into, PrintStream err) throws IOException {
        var numbers = folder.batchNumbers();
        int highest = numbers.length == 0 ? -1 : numbers[numbers.length - 1];
        into.nextBatchNum = Math.max(highest + 1, previous == null ? 0 : previous.nextBatchNum);
        var out = IntStream.builder();
        if (previous != null && previous.matches(dataset.sha256())) {
            err.println("↻ Resuming by prompt index (checkpoint matches the dataset)");
            into.completed.or(previous.completed);
            into.completed.or(previous.discarded); // the previous release kept discarded prompts out of completed_prompts
            into.discarded.or(previous.discarded);
            into.failed.putAll(previous.failed);
            into.adoptBatches(previous);
            into.invocations.addAll(previous.invocations);
            for (int i = 0; i < dataset.size(); i++)
                if (!into.completed.get(i) && !into.discarded.get(i)) out.add(i);
            return out.build().toArray();
        }
        if (previous == null && !folder.hasResults()) return IntStream.range(0, dataset.size()).toArray();
        err.println("↻ Resuming by prompt content (dataset changed, checkpoint missing or made by Hermes)");
        var recorded = folder.recordedPrompts(json);
        if (previous != null) {
            into.adoptBatches(previous);
            into.invocations.addAll(previous.invocations);
        }
        var counted = new LongHashSet(); // each recorded prompt completes one entry; a second copy runs again
        try (var reader = dataset.reader()) {
            for (int i = 0; i < dataset.size(); i++) {
                var key = reader.entry(i).prompt().strip();
                if (recorded.contains(key)) {
                    if (counted.add(PromptFingerprint.of(key))) {
                        into.completed.set(i);
                        if (recorded.discarded(key)) into.discarded.set(i);
                    }
                } else {
                    out.add(i);
                }
            }
        }
        return out.build().toArray();
    }
}
