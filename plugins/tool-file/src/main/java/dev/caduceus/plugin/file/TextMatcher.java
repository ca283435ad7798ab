package dev.caduceus.plugin.file;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Locates text to replace with these strategies, tried in order until one finds at
 * least one match: (1) exact; (2) ignoring trailing whitespace on each line; (3) runs of spaces and
 * tabs collapsed; (4) ignoring leading indentation, re-indenting the replacement. Strategies 2–4
 * match whole lines. No similarity thresholds. Stateless.
 */
final class TextMatcher {
    /** The line normalizers of strategies 1–4, each more lenient than the one before. */
    static final List<UnaryOperator<String>> LINE_STRATEGIES = List.of(
            s -> s,
            String::stripTrailing,
            s -> s.replaceAll("[ \\t]+", " ").stripTrailing(),
            s -> s.replaceAll("[ \\t]+", " ").strip());
    static final int REINDENT = 3;

    private TextMatcher() {}

    /** One match: lines {@code [first, first+count)} of the text, and how to indent the replacement. */
    record LineMatch(int first, int count, int strategy) {}

    /**
     * The non-overlapping matches of {@code wanted} (lines) in {@code lines} at or after line
     * {@code from}, with the first strategy that finds any (strategies from {@code firstStrategy}).
     */
    static List<LineMatch> findLines(List<String> lines, List<String> wanted, int from, int firstStrategy) {
        for (int s = firstStrategy; s < LINE_STRATEGIES.size(); s++) {
            var norm = LINE_STRATEGIES.get(s);
            var target = wanted.stream().map(norm).toList();
            var found = new ArrayList<LineMatch>();
            for (int i = Math.max(0, from); i + target.size() <= lines.size() && !target.isEmpty(); i++) {
                if (windowEquals(lines, i, target, norm)) {
                    found.add(new LineMatch(i, target.size(), s));
                    i += target.size() - 1;
                }
            }
            if (!found.isEmpty()) return found;
        }
        return List.of();
    }

    private static boolean windowEquals(List<String> lines, int at, List<String> target, UnaryOperator<String> norm) {
        for (int k = 0; k < target.size(); k++)
            if (!norm.apply(lines.get(at + k)).equals(target.get(k))) return false;
        return true;
    }

    /**
     * The replacement lines for a match: unchanged, except for strategy 4, where the indentation of
     * {@code oldLines} is swapped for the indentation the file has at the match.
     */
    static List<String> reindent(List<String> fileLines, LineMatch m, List<String> oldLines, List<String> newLines) {
        if (m.strategy() != REINDENT) return newLines;
        var fileIndent = indentOfFirstNonBlank(fileLines.subList(m.first(), m.first() + m.count()));
        var oldIndent = indentOfFirstNonBlank(oldLines);
        var out = new ArrayList<String>(newLines.size());
        for (var line : newLines) {
            if (line.isBlank()) out.add(line);
            else if (line.startsWith(oldIndent)) out.add(fileIndent + line.substring(oldIndent.length()));
            else out.add(fileIndent + line.stripLeading());
        }
        return out;
    }

    private static String indentOfFirstNonBlank(List<String> lines) {
        for (var line : lines)
            if (!line.isBlank()) return line.substring(0, line.length() - line.stripLeading().length());
        return "";
    }

    /** Exact, non-overlapping occurrences of {@code wanted} in {@code text} (strategy 1 of replace mode). */
    static List<Integer> exact(String text, String wanted) {
        var at = new ArrayList<Integer>();
        for (int i = text.indexOf(wanted); i >= 0; i = text.indexOf(wanted, i + wanted.length())) at.add(i);
        return at;
    }
}
