package dev.caduceus.plugin.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class ThinkSplitterTest {

    @Test
    void movesTheThinkBlockToReasoningWhereverTheChunksSplit() {
        var whole = "<think>plan: a < b</think>\n\nThe answer";
        for (int i = 0; i <= whole.length(); i++) {
            for (int j = i; j <= whole.length(); j++) {
                var out = split(whole.substring(0, i), whole.substring(i, j), whole.substring(j));
                assertEquals(List.of("plan: a < b", "The answer"), out, "split at " + i + "," + j);
            }
        }
    }

    @Test
    void contentWithoutABlockPassesUnchanged() {
        assertEquals(List.of("", "  <thinking> is a word"), split("  <thi", "nking> is", " a word"));
        assertEquals(List.of("", "hello <think>x</think>"), split("hello ", "<think>x</think>"));
    }

    @Test
    void anUnclosedBlockIsAllReasoning() {
        assertEquals(List.of("still thinking", ""), split("<think>still ", "thinking"));
    }

    /** Feeds the chunks; returns [reasoning, content]. */
    private static List<String> split(String... chunks) {
        var reasoning = new StringBuilder();
        var content = new StringBuilder();
        var splitter = new ThinkSplitter(content::append, reasoning::append);
        for (var chunk : chunks) splitter.accept(chunk);
        splitter.finish();
        return List.of(reasoning.toString(), content.toString());
    }
}
