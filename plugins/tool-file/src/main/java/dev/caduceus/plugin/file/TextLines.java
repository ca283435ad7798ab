package dev.caduceus.plugin.file;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A text as lines split on {@code \n}, and whether it ended with a newline, so that joining it
 * again gives the same text. Immutable.
 */
record TextLines(List<String> lines, boolean trailingNewline) {
    TextLines {
        lines = List.copyOf(lines);
    }

    static TextLines of(String text) {
        if (text.isEmpty()) return new TextLines(List.of(), false);
        var parts = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
        boolean trailing = text.endsWith("\n");
        if (trailing) parts.remove(parts.size() - 1);
        return new TextLines(parts, trailing);
    }

    String text() {
        if (lines.isEmpty()) return "";
        return String.join("\n", lines) + (trailingNewline ? "\n" : "");
    }

    /** These lines with {@code [first, first+count)} replaced by {@code replacement}. */
    TextLines splice(int first, int count, List<String> replacement) {
        var out = new ArrayList<String>(lines.size() - count + replacement.size());
        out.addAll(lines.subList(0, first));
        out.addAll(replacement);
        out.addAll(lines.subList(first + count, lines.size()));
        return new TextLines(out, trailingNewline || lines.isEmpty());
    }
}
