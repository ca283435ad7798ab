package dev.caduceus.plugin.openai;

import java.util.function.Consumer;

/**
 * Moves a {@code <think>…</think>} block at the start of the content to the reasoning (tools.md §2.3),
 * across chunk boundaries: text that might still become {@code <think>} or {@code </think>} is held
 * back until the next chunk decides. Leading whitespace before {@code <think>} and after
 * {@code </think>} is dropped; content without the block passes unchanged. One instance per model call; not thread-safe.
 */
final class ThinkSplitter {
    private static final String OPEN = "<think>";
    private static final String CLOSE = "</think>";

    private enum State { START, THINKING, AFTER_THINK, CONTENT }

    private final Consumer<String> content;
    private final Consumer<String> reasoning;
    private final StringBuilder held = new StringBuilder();
    private State state = State.START;

    ThinkSplitter(Consumer<String> content, Consumer<String> reasoning) {
        this.content = content;
        this.reasoning = reasoning;
    }

    void accept(String chunk) {
        if (chunk.isEmpty()) return;
        switch (state) {
            case CONTENT -> content.accept(chunk);
            case START -> start(chunk);
            case THINKING -> thinking(chunk);
            case AFTER_THINK -> afterThink(chunk);
        }
    }

    /** Emits whatever is held back; call once when the content ends. */
    void finish() {
        if (held.isEmpty()) return;
        var rest = held.toString();
        held.setLength(0);
        if (state == State.THINKING) reasoning.accept(rest);
        else content.accept(rest);
    }

    private void start(String chunk) {
        held.append(chunk);
        var text = held.toString().stripLeading();
        if (text.startsWith(OPEN)) {
            held.setLength(0);
            state = State.THINKING;
            thinking(text.substring(OPEN.length()));
        } else if (!OPEN.startsWith(text)) { // cannot become "<think>" any more: plain content, as sent
            var all = held.toString();
            held.setLength(0);
            state = State.CONTENT;
            content.accept(all);
        }
    }

    private void thinking(String chunk) {
        held.append(chunk);
        var text = held.toString();
        int close = text.indexOf(CLOSE);
        if (close >= 0) {
            held.setLength(0);
            if (close > 0) reasoning.accept(text.substring(0, close));
            state = State.AFTER_THINK;
            afterThink(text.substring(close + CLOSE.length()));
            return;
        }
        int keep = partialSuffix(text, CLOSE);
        held.setLength(0);
        held.append(text, text.length() - keep, text.length());
        if (text.length() > keep) reasoning.accept(text.substring(0, text.length() - keep));
    }

    private void afterThink(String chunk) {
        var text = chunk.stripLeading();
        if (text.isEmpty()) return;
        state = State.CONTENT;
        content.accept(text);
    }

    /** The length of the longest suffix of {@code text} that is a proper prefix of {@code tag}. */
    private static int partialSuffix(String text, String tag) {
        for (int n = Math.min(tag.length() - 1, text.length()); n > 0; n--)
            if (text.endsWith(tag.substring(0, n))) return n;
        return 0;
    }
}
