package dev.caduceus.plugin.file;

import java.util.ArrayList;
import java.util.List;

/**
 * A parsed V4A patch (the {@code apply_patch} format):
 * <pre>
 * *** Begin Patch
 * *** Add File: docs/new.md          (lines prefixed "+")
 * *** Delete File: old.txt
 * *** Update File: src/app.py        (optionally "*** Move to: src/main.py")
 * &#64;&#64; def main():                     (hunk, optional context hint)
 *  context
 * -removed
 * +added
 * *** End of File                    (optional: the hunk ends at the end of the file)
 * *** End Patch
 * </pre>
 * Immutable.
 */
record V4aPatch(List<Operation> operations) {
    static final String BEGIN = "*** Begin Patch";
    static final String END = "*** End Patch";

    V4aPatch {
        operations = List.copyOf(operations);
    }

    /** One file operation. */
    sealed interface Operation {
        String path();
    }

    /** {@code *** Add File}: a new file with these lines. */
    record Add(String path, List<String> lines) implements Operation {
        Add { lines = List.copyOf(lines); }
    }

    /** {@code *** Delete File}. */
    record Delete(String path) implements Operation {}

    /** {@code *** Update File}, optionally moved to {@code moveTo} (null when not moved). */
    record Update(String path, String moveTo, List<Hunk> hunks) implements Operation {
        Update { hunks = List.copyOf(hunks); }
    }

    /**
     * One hunk: the lines it expects ({@code oldLines}: context and removed) and the lines that
     * replace them ({@code newLines}: context and added).
     *
     * @param hint      the text after {@code @@}, or empty
     * @param endOfFile whether {@code *** End of File} anchors the hunk at the end of the file
     */
    record Hunk(String hint, List<String> oldLines, List<String> newLines, boolean endOfFile) {
        Hunk {
            oldLines = List.copyOf(oldLines);
            newLines = List.copyOf(newLines);
        }
    }

    /** Parses patch text; throws {@link ToolFailure} naming the first problem. */
    static V4aPatch parse(String text) throws ToolFailure {
        var lines = TextLines.of(text.strip().replace("\r\n", "\n")).lines();
        if (lines.isEmpty() || !lines.get(0).strip().equals(BEGIN))
            throw new ToolFailure("Invalid patch: the first line must be '" + BEGIN + "'");
        int last = lines.size() - 1;
        if (last < 1 || !lines.get(last).strip().equals(END))
            throw new ToolFailure("Invalid patch: the last line must be '" + END + "'");
        var ops = new ArrayList<Operation>();
        int i = 1;
        while (i < last) {
            var line = lines.get(i);
            if (line.startsWith("*** Add File: ")) {
                var path = header(line, "*** Add File: ");
                var body = new ArrayList<String>();
                for (i++; i < last && !lines.get(i).startsWith("*** "); i++) {
                    var l = lines.get(i);
                    if (!l.startsWith("+"))
                        throw new ToolFailure("Invalid patch: line " + (i + 1) + " of Add File " + path
                                + " must start with '+': " + l);
                    body.add(l.substring(1));
                }
                ops.add(new Add(path, body));
            } else if (line.startsWith("*** Delete File: ")) {
                ops.add(new Delete(header(line, "*** Delete File: ")));
                i++;
            } else if (line.startsWith("*** Update File: ")) {
                var path = header(line, "*** Update File: ");
                String moveTo = null;
                i++;
                if (i < last && lines.get(i).startsWith("*** Move to: ")) moveTo = header(lines.get(i++), "*** Move to: ");
                var hunks = new ArrayList<Hunk>();
                i = hunks(lines, i, last, path, hunks);
                if (hunks.isEmpty() && moveTo == null)
                    throw new ToolFailure("Invalid patch: Update File " + path + " has no hunks");
                ops.add(new Update(path, moveTo, hunks));
            } else if (line.isBlank()) {
                i++;
            } else {
                throw new ToolFailure("Invalid patch: unexpected line " + (i + 1) + ": " + line);
            }
        }
        if (ops.isEmpty()) throw new ToolFailure("Invalid patch: no file operations");
        return new V4aPatch(ops);
    }

    /** Reads the hunks of one Update section starting at line {@code i}; returns the next line index. */
    private static int hunks(List<String> lines, int i, int last, String path, List<Hunk> out) throws ToolFailure {
        String hint = null;
        var oldLines = new ArrayList<String>();
        var newLines = new ArrayList<String>();
        boolean changed = false;
        for (; i < last; i++) {
            var l = lines.get(i);
            if (l.equals("*** End of File")) {
                flush(hint, oldLines, newLines, changed, true, path, out);
                hint = null; changed = false; oldLines.clear(); newLines.clear();
                continue;
            }
            if (l.startsWith("*** ")) break;
            if (l.startsWith("@@")) {
                if (hint != null || changed || !oldLines.isEmpty()) flush(hint, oldLines, newLines, changed, false, path, out);
                hint = l.substring(2).strip();
                changed = false; oldLines.clear(); newLines.clear();
                continue;
            }
            char kind = l.isEmpty() ? ' ' : l.charAt(0);
            var body = l.isEmpty() ? "" : l.substring(1);
            switch (kind) {
                case ' ' -> { oldLines.add(body); newLines.add(body); }
                case '-' -> { oldLines.add(body); changed = true; }
                case '+' -> { newLines.add(body); changed = true; }
                default -> throw new ToolFailure("Invalid patch: line " + (i + 1) + " of Update File " + path
                        + " must start with ' ', '-', '+' or '@@': " + l);
            }
        }
        if (hint != null || changed || !oldLines.isEmpty()) flush(hint, oldLines, newLines, changed, false, path, out);
        return i;
    }

    private static void flush(String hint, List<String> oldLines, List<String> newLines, boolean changed,
                              boolean endOfFile, String path, List<Hunk> out) throws ToolFailure {
        if (!changed) {
            if (oldLines.isEmpty()) return;
            throw new ToolFailure("Invalid patch: hunk " + (out.size() + 1) + " of " + path + " changes nothing");
        }
        out.add(new Hunk(hint == null ? "" : hint, oldLines, newLines, endOfFile));
    }

    private static String header(String line, String prefix) throws ToolFailure {
        var path = line.substring(prefix.length()).strip();
        if (path.isEmpty()) throw new ToolFailure("Invalid patch: empty path in '" + line + "'");
        for (var part : path.split("[/\\\\]"))
            if (part.equals("..")) throw new ToolFailure("Invalid patch: path with '..' refused: " + path);
        return path;
    }
}
