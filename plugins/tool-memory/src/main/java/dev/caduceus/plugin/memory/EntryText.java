package dev.caduceus.plugin.memory;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Rules about entry text shared by the edits and the snapshot: the delimiter, lengths in code points
 * (as Hermes counts them) and the {@code add} checks (control, invisible and
 * bidirectional characters, role markers). Pure functions.
 */
final class EntryText {
    /** Joins entries in size computations and in the snapshot. */
    static final String DELIMITER = "\n§\n";
    /** What the snapshot and echoed entry lists show instead of a refused entry. */
    static final String BLOCKED = "[BLOCKED: entry hidden]";

    private static final List<String> ROLE_MARKERS = List.of("<|im_start|>", "</system>", "<tool_call>");

    private EntryText() {}

    /** Length in Unicode code points. */
    static int length(String text) {
        return text.codePointCount(0, text.length());
    }

    /** Size of a store: the length of its entries joined by {@link #DELIMITER}; 0 when empty. */
    static int size(List<String> entries) {
        return entries.isEmpty() ? 0 : length(String.join(DELIMITER, entries));
    }

    /** Why {@code text} may not be stored, or empty when it may. */
    static Optional<String> refusal(String text) {
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            if (Character.getType(cp) == Character.CONTROL && cp != '\n' && cp != '\t')
                return Optional.of(refused("a control character (U+%04X)".formatted(cp)));
            if (invisible(cp))
                return Optional.of(refused("an invisible or bidirectional-override character (U+%04X)".formatted(cp)));
            i += Character.charCount(cp);
        }
        var lower = text.toLowerCase(Locale.ROOT);
        for (var marker : ROLE_MARKERS)
            if (lower.contains(marker)) return Optional.of(refused("the role marker " + marker));
        return Optional.empty();
    }

    /** {@code text}, or {@link #BLOCKED} when it would be refused now. */
    static String shown(String text) {
        return refusal(text).isPresent() ? BLOCKED : text;
    }

    /** The first 80 code points, plus {@code ...} when longer (the previews of ambiguous matches). */
    static String preview(String text) {
        if (length(text) <= 80) return text;
        return text.substring(0, text.offsetByCodePoints(0, 80)) + "...";
    }

    /** {@code "42% — 924/2200 chars"}. */
    static String usage(List<String> entries, int limit) {
        int current = size(entries);
        return percent(current, limit) + "% — " + current + "/" + limit + " chars";
    }

    /** Percent of the limit used, capped at 100, truncated as Hermes does ({@code int(cur / limit * 100)}). */
    static int percent(int current, int limit) {
        return (int) Math.min(100, Math.floor((double) current / limit * 100));
    }

    private static boolean invisible(int cp) {
        return (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E)
                || (cp >= 0x2060 && cp <= 0x2064) || cp == 0xFEFF;
    }

    private static String refused(String what) {
        return "Entry refused: it contains " + what
                + ". Memory entries may not contain control characters (other than newline and tab), "
                + "invisible or bidirectional-override characters, or role markers.";
    }
}
