package dev.caduceus.platform.batch;

/**
 * How one prompt ended: completed, discarded for lack of reasoning, or failed. Immutable.
 */
sealed interface PromptOutcome {
    int promptIndex();

    /** Per-prompt reasoning counts: assistant turns, and those with reasoning. */
    record Reasoning(int assistantTurns, int withReasoning) {
        int without() { return assistantTurns - withReasoning; }
        boolean any() { return withReasoning > 0; }
    }

    /** A trajectory line to append. */
    record Success(int promptIndex, String line, ToolStats tools, Reasoning reasoning) implements PromptOutcome {}

    /** A tombstone line to append: success without reasoning while {@code --require_reasoning}. */
    record Discarded(int promptIndex, String line) implements PromptOutcome {}

    /** Nothing written; retried on resume. */
    record Failed(int promptIndex, String error) implements PromptOutcome {}

    /** Stopped by Ctrl+C: nothing recorded, runs again on resume. */
    record Interrupted(int promptIndex) implements PromptOutcome {}
}
