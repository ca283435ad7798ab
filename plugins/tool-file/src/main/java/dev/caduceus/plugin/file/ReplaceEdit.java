package dev.caduceus.plugin.file;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code replace} mode of {@code patch} on a text in memory: {@code old_string}
 * located by {@link TextMatcher}'s strategies, unique unless {@code replace_all}. Stateless.
 */
final class ReplaceEdit {
    private ReplaceEdit() {}

    /** Why no edit was made: no match, or several without {@code replace_all}. */
    static final class Mismatch extends Exception {
        final int matches;

        Mismatch(int matches) {
            super(null, null, false, false);
            this.matches = matches;
        }
    }

    /** {@code content} with {@code oldText} replaced by {@code newText}. */
    static String apply(String content, String oldText, String newText, boolean all) throws Mismatch {
        var exact = TextMatcher.exact(content, oldText);
        if (!exact.isEmpty()) {
            if (exact.size() > 1 && !all) throw new Mismatch(exact.size());
            var sb = new StringBuilder(content);
            for (int i = exact.size() - 1; i >= 0; i--)
                sb.replace(exact.get(i), exact.get(i) + oldText.length(), newText);
            return sb.toString();
        }
        boolean oldEndsNl = oldText.endsWith("\n");
        var oldLines = lines(oldEndsNl ? oldText.substring(0, oldText.length() - 1) : oldText);
        var newBody = oldEndsNl && newText.endsWith("\n") ? newText.substring(0, newText.length() - 1) : newText;
        var newLines = newBody.isEmpty() ? List.<String>of() : lines(newBody);
        var text = TextLines.of(content);
        var found = TextMatcher.findLines(text.lines(), oldLines, 0, 1);
        if (found.isEmpty()) throw new Mismatch(0);
        if (found.size() > 1 && !all) throw new Mismatch(found.size());
        for (int i = found.size() - 1; i >= 0; i--) {
            var m = found.get(i);
            text = text.splice(m.first(), m.count(), TextMatcher.reindent(text.lines(), m, oldLines, newLines));
        }
        return text.text();
    }

    private static List<String> lines(String s) {
        return new ArrayList<>(Arrays.asList(s.split("\n", -1)));
    }
}
