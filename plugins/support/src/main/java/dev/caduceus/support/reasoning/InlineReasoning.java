package dev.caduceus.support.reasoning;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Reasoning that a model writes inline in its content, in {@code <think>}, {@code <thinking>},
 * {@code <thought>}, {@code <reasoning>} or {@code <REASONING_SCRATCHPAD>} blocks in any letter
 * case, moved out of the content the way Hermes Agent does it (in streamed answers and in batch trajectories). The
 * one implementation for every path: a model provider moves a leading block while it streams
 * ({@link Streaming}, so chat and Responses clients never see it), and the batch runner applies
 * {@link #split} to the whole stored content before its no-reasoning filter. Stateless and
 * thread-safe, except {@link Streaming}, which is one per model call.
 */
public final class InlineReasoning {
    /** The tag names, in the order Hermes collects their blocks. */
    public static final List<String> TAGS = List.of("think", "thinking", "thought", "reasoning", "REASONING_SCRATCHPAD");

    private static final int FLAGS = Pattern.DOTALL | Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE
            | Pattern.UNICODE_CHARACTER_CLASS;
    private static final List<Pattern> BLOCKS = TAGS.stream()
            .map(t -> Pattern.compile("<" + t + ">(.*?)</" + t + ">", FLAGS)).toList();
    private static final String NAMES = "(?:think|thinking|reasoning|thought|REASONING_SCRATCHPAD)";
    /** What Hermes removes from the stored content, in its order. */
    private static final List<Pattern> STRIP = List.of(
            Pattern.compile("<think>.*?</think>", FLAGS),
            Pattern.compile("<thinking>.*?</thinking>", FLAGS),
            Pattern.compile("<reasoning>.*?</reasoning>", FLAGS),
            Pattern.compile("<REASONING_SCRATCHPAD>.*?</REASONING_SCRATCHPAD>", FLAGS),
            Pattern.compile("<thought>.*?</thought>", FLAGS),
            Pattern.compile("<tool_call\\b[^>]*>.*?</tool_call>", FLAGS),
            Pattern.compile("<tool_calls\\b[^>]*>.*?</tool_calls>", FLAGS),
            Pattern.compile("<tool_result\\b[^>]*>.*?</tool_result>", FLAGS),
            Pattern.compile("<function_call\\b[^>]*>.*?</function_call>", FLAGS),
            Pattern.compile("<function_calls\\b[^>]*>.*?</function_calls>", FLAGS),
            Pattern.compile("(?:^|(?<=[\\n\\r.!?:]))[ \\t]*<function\\b[^>]*\\bname\\s*=[^>]*>(?:(?:(?!</function>).)*)</function>", FLAGS),
            Pattern.compile("(?:^|\\n)[ \\t]*<" + NAMES + "\\b[^>]*>.*$", FLAGS),
            Pattern.compile("</?" + NAMES + ">\\s*", FLAGS),
            Pattern.compile("</(?:tool_call|tool_calls|tool_result|function_call|function_calls|function)>\\s*", FLAGS));

    private InlineReasoning() {}

    /**
     * A content split into its inline reasoning and what remains.
     *
     * @param reasoning the blocks' texts, each stripped, duplicates and empty ones dropped, joined by a
     *                  blank line; {@code null} when there is none
     * @param content   the content without reasoning blocks (closed, unterminated at a line start, or
     *                  stray tags) and without tool-call markup, stripped
     */
    public record Split(String reasoning, String content) {}

    /** Hermes' extraction and clean-up of one whole assistant content. */
    public static Split split(String content) {
        if (content == null || content.isEmpty()) return new Split(null, "");
        return new Split(extract(content), strip(withoutBlocks(content)));
    }

    /** The inline reasoning of a content (see {@link Split#reasoning}), or {@code null}. */
    public static String extract(String content) {
        if (content == null || content.isEmpty()) return null;
        var parts = new ArrayList<String>();
        for (var block : BLOCKS) {
            var m = block.matcher(content);
            while (m.find()) {
                var cleaned = strip(m.group(1));
                if (!cleaned.isEmpty() && !parts.contains(cleaned)) parts.add(cleaned);
            }
        }
        return parts.isEmpty() ? null : String.join("\n\n", parts);
    }

    /** The content without its reasoning blocks and tool-call markup (not stripped). */
    public static String withoutBlocks(String content) {
        if (content == null || content.isEmpty()) return "";
        var out = content;
        for (var p : STRIP) out = p.matcher(out).replaceAll("");
        return out;
    }

    /** Python's {@code str.strip()}: Unicode whitespace at both ends removed. */
    public static String strip(String s) {
        int start = 0, end = s.length();
        while (start < end && isSpace(s.charAt(start))) start++;
        while (end > start && isSpace(s.charAt(end - 1))) end--;
        return s.substring(start, end);
    }

    /** Python's {@code str.isspace()} for one character. */
    public static boolean isSpace(char c) {
        return Character.isWhitespace(c) || c == '\u00a0' || c == '\u2007' || c == '\u202f' || c == '\u0085';
    }

    /**
     * Moves a reasoning block at the start of a streamed content to the reasoning, across chunk
     * boundaries: text that might still become an opening or closing tag is held back until the next
     * chunk decides. Whitespace before the opening tag, around the reasoning and after the closing tag
     * is dropped; content without a leading block passes unchanged; an unclosed block is all
     * reasoning. One instance per model call; not thread-safe.
     */
    public static final class Streaming {
        private enum State { START, THINKING, AFTER, CONTENT }

        private final Consumer<String> content;
        private final Consumer<String> reasoning;
        private final StringBuilder held = new StringBuilder();
        private State state = State.START;
        private String close;
        private boolean reasoningStarted;

        /** @param content receives content text; {@code reasoning} receives the block's text */
        public Streaming(Consumer<String> content, Consumer<String> reasoning) {
            this.content = content;
            this.reasoning = reasoning;
        }

        /** One chunk of content, in order. */
        public void accept(String chunk) {
            if (chunk.isEmpty()) return;
            switch (state) {
                case CONTENT -> content.accept(chunk);
                case START -> start(chunk);
                case THINKING -> thinking(chunk);
                case AFTER -> after(chunk);
            }
        }

        /** Emits whatever is held back; call once when the content ends. */
        public void finish() {
            if (held.isEmpty()) return;
            var rest = held.toString();
            held.setLength(0);
            if (state == State.THINKING) {
                emitReasoning(trimTrailing(rest));
            } else {
                content.accept(rest);
            }
        }

        private void start(String chunk) {
            held.append(chunk);
            var all = held.toString();
            int lead = 0;
            while (lead < all.length() && isSpace(all.charAt(lead))) lead++;
            var text = all.substring(lead);
            if (text.isEmpty()) return;
            boolean maybe = false;
            for (var tag : TAGS) {
                var open = "<" + tag + ">";
                if (text.length() >= open.length() && text.regionMatches(true, 0, open, 0, open.length())) {
                    held.setLength(0);
                    state = State.THINKING;
                    close = "</" + tag + ">";
                    thinking(text.substring(open.length()));
                    return;
                }
                if (text.length() < open.length() && open.regionMatches(true, 0, text, 0, text.length())) maybe = true;
            }
            if (!maybe) { // cannot become an opening tag any more: plain content, as sent
                held.setLength(0);
                state = State.CONTENT;
                content.accept(all);
            }
        }

        private void thinking(String chunk) {
            held.append(chunk);
            var text = held.toString();
            int at = indexOfIgnoreCase(text, close);
            if (at >= 0) {
                held.setLength(0);
                emitReasoning(trimTrailing(text.substring(0, at)));
                state = State.AFTER;
                after(text.substring(at + close.length()));
                return;
            }
            int keep = partialSuffix(text, close);
            int end = text.length() - keep;
            while (end > 0 && isSpace(text.charAt(end - 1))) end--; // trailing whitespace waits for more text
            held.setLength(0);
            held.append(text, end, text.length());
            emitReasoning(text.substring(0, end));
        }

        private void emitReasoning(String text) {
            if (!reasoningStarted) {
                int lead = 0;
                while (lead < text.length() && isSpace(text.charAt(lead))) lead++;
                text = text.substring(lead);
                if (!text.isEmpty()) reasoningStarted = true;
            }
            if (!text.isEmpty()) reasoning.accept(text);
        }

        private void after(String chunk) {
            int lead = 0;
            while (lead < chunk.length() && isSpace(chunk.charAt(lead))) lead++;
            var text = chunk.substring(lead);
            if (text.isEmpty()) return;
            state = State.CONTENT;
            content.accept(text);
        }

        private static String trimTrailing(String s) {
            int end = s.length();
            while (end > 0 && isSpace(s.charAt(end - 1))) end--;
            return s.substring(0, end);
        }

        private static int indexOfIgnoreCase(String text, String tag) {
            for (int i = 0; i + tag.length() <= text.length(); i++)
                if (text.regionMatches(true, i, tag, 0, tag.length())) return i;
            return -1;
        }

        /** The length of the longest suffix of {@code text} that is a proper prefix of {@code tag}. */
        private static int partialSuffix(String text, String tag) {
            for (int n = Math.min(tag.length() - 1, text.length()); n > 0; n--)
                if (text.regionMatches(true, text.length() - n, tag, 0, n)) return n;
            return 0;
        }
    }
}
