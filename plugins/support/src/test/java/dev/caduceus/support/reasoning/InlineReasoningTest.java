package dev.caduceus.support.reasoning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class InlineReasoningTest {

    @Test
    void everyTagInEveryLetterCaseIsMovedOutOfTheContent() {
        for (var tag : InlineReasoning.TAGS)
            for (var spelled : List.of(tag.toLowerCase(), tag.toUpperCase(), Character.toUpperCase(tag.charAt(0)) + tag.substring(1).toLowerCase())) {
                var split = InlineReasoning.split("<" + spelled + ">\n  plan it \n</" + spelled + ">\n\nThe answer.");
                assertEquals("plan it", split.reasoning(), spelled);
                assertEquals("The answer.", split.content(), spelled);
            }
    }

    @Test
    void blocksAreCollectedInTagOrderWithoutDuplicatesAndJoinedByABlankLine() {
        var split = InlineReasoning.split("a <thought>two</thought> b <think>one</think> c <think>one</think><think> </think>");
        assertEquals("one\n\ntwo", split.reasoning());
        assertEquals("a  b  c", split.content());
    }

    @Test
    void unterminatedBlocksStrayTagsAndToolCallMarkupLeaveTheContentAsHermesDoes() {
        assertEquals("Before.", InlineReasoning.split("Before.\n<thinking>never closed\nmore").content());
        assertNull(InlineReasoning.split("Before.\n<thinking>never closed").reasoning());
        assertEquals("x y", InlineReasoning.split("x </think>y").content());
        assertEquals("Calling.", InlineReasoning.split("Calling.<tool_call>{\"name\": \"t\"}</tool_call>").content());
        assertEquals("Use <function> in JS", InlineReasoning.split("Use <function> in JS").content());
        assertNull(InlineReasoning.split("plain").reasoning());
    }

    @Test
    void pythonStripRemovesNoBreakSpaceAndOtherUnicodeWhitespace() {
        assertEquals("x", InlineReasoning.strip("\u00a0\u2003 x\u3000\n"));
    }

    @Test
    void streamingMovesALeadingBlockWhereverTheChunksSplit() {
        var whole = " <THINKING>\n plan: a < b \n</thinking>\n\nThe answer";
        for (int i = 0; i <= whole.length(); i++)
            for (int j = i; j <= whole.length(); j++) {
                var out = stream(whole.substring(0, i), whole.substring(i, j), whole.substring(j));
                assertEquals(List.of("plan: a < b", "The answer"), out, "split at " + i + "," + j);
            }
    }

    @Test
    void streamingPassesContentWithoutALeadingBlockUnchanged() {
        assertEquals(List.of("", "  <thinker> is a word"), stream("  <thi", "nker> is", " a word"));
        assertEquals(List.of("", "hello <think>x</think>"), stream("hello ", "<think>x</think>"));
    }

    @Test
    void streamingTreatsAnUnclosedBlockAsAllReasoning() {
        assertEquals(List.of("still thinking", ""), stream("<REASONING_SCRATCHPAD>still ", "thinking \n"));
    }

    /** Feeds the chunks; returns [reasoning, content]. */
    private static List<String> stream(String... chunks) {
        var reasoning = new StringBuilder();
        var content = new StringBuilder();
        var splitter = new InlineReasoning.Streaming(content::append, reasoning::append);
        for (var chunk : chunks) splitter.accept(chunk);
        splitter.finish();
        return List.of(reasoning.toString(), content.toString());
    }
}
