package dev.caduceus.plugin.file;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Plans a {@link V4aPatch} in memory: every operation is validated against the files (and the
 * results of earlier operations of the same patch) before anything is written; the first failing
 * one is named ({@code hunk 2 of src/app.py: context not found}). Not thread-safe; one per call.
 */
final class V4aApplier {
    private final PathGuard guard;
    /** Current content per file as the patch goes along; null = absent. Insertion-ordered. */
    private final Map<Path, String> state = new LinkedHashMap<>();
    private final Map<Path, String> original = new LinkedHashMap<>();
    private final Map<Path, String> names = new LinkedHashMap<>();

    V4aApplier(PathGuard guard) {
        this.guard = guard;
    }

    /** The changes the patch makes, one per touched file, in first-touched order. */
    List<FileChange> plan(V4aPatch patch) throws ToolFailure, IOException {
        for (var op : patch.operations()) {
            switch (op) {
                case V4aPatch.Add add -> {
                    var file = resolve(add.path());
                    if (current(file) != null) throw new ToolFailure("Add File " + add.path() + ": the file already exists");
                    state.put(file, add.lines().isEmpty() ? "" : String.join("\n", add.lines()) + "\n");
                }
                case V4aPatch.Delete delete -> {
                    var file = resolve(delete.path());
                    if (current(file) == null) throw new ToolFailure("Delete File " + delete.path() + ": file not found");
                    state.put(file, null);
                }
                case V4aPatch.Update update -> update(update);
            }
        }
        var changes = new ArrayList<FileChange>();
        for (var e : state.entrySet()) {
            var before = original.get(e.getKey());
            if (before == null ? e.getValue() != null : !before.equals(e.getValue()))
                changes.add(new FileChange(e.getKey(), names.get(e.getKey()), before, e.getValue()));
        }
        return changes;
    }

    private void update(V4aPatch.Update update) throws ToolFailure, IOException {
        var file = resolve(update.path());
        var content = current(file);
        if (content == null) throw new ToolFailure("Update File " + update.path() + ": file not found");
        var text = TextLines.of(content);
        int cursor = 0;
        for (int h = 0; h < update.hunks().size(); h++) {
            var hunk = update.hunks().get(h);
            var where = "hunk " + (h + 1) + " of " + update.path();
            if (!hunk.hint().isEmpty()) {
                int at = hintLine(text.lines(), hunk.hint(), cursor);
                if (at < 0) throw new ToolFailure(where + ": context hint not found: " + hunk.hint());
                cursor = at + (hunk.oldLines().isEmpty() ? 1 : 0);
            }
            if (hunk.oldLines().isEmpty()) {
                int at = hunk.hint().isEmpty() ? text.lines().size() : cursor;
                text = text.splice(at, 0, hunk.newLines());
                cursor = at + hunk.newLines().size();
                continue;
            }
            var found = TextMatcher.findLines(text.lines(), hunk.oldLines(), cursor, 0);
            int size = text.lines().size();
            if (hunk.endOfFile()) found = found.stream().filter(m -> m.first() + m.count() == size).toList();
            if (found.isEmpty()) throw new ToolFailure(where + ": context not found");
            var m = found.get(0);
            var replacement = TextMatcher.reindent(text.lines(), m, hunk.oldLines(), hunk.newLines());
            text = text.splice(m.first(), m.count(), replacement);
            cursor = m.first() + replacement.size();
        }
        var result = text.text();
        if (update.moveTo() != null) {
            var target = resolve(update.moveTo());
            if (!target.equals(file) && current(target) != null)
                throw new ToolFailure("Update File " + update.path() + ": Move to " + update.moveTo() + " already exists");
            state.put(file, null);
            state.put(target, result);
        } else {
            state.put(file, result);
        }
    }

    private static int hintLine(List<String> lines, String hint, int from) {
        var wanted = hint.strip();
        for (int i = from; i < lines.size(); i++) if (lines.get(i).contains(wanted)) return i;
        for (int i = from; i < lines.size(); i++)
            if (lines.get(i).replaceAll("[ \\t]+", " ").contains(wanted.replaceAll("[ \\t]+", " "))) return i;
        return -1;
    }

    private Path resolve(String name) throws ToolFailure {
        var file = guard.forWrite(name);
        names.putIfAbsent(file, name);
        return file;
    }

    /** The file's content as the patch has left it so far; null when absent. */
    private String current(Path file) throws ToolFailure, IOException {
        if (state.containsKey(file)) return state.get(file);
        String content = null;
        if (Files.isDirectory(file)) throw new ToolFailure(names.get(file) + " is a directory");
        if (Files.isRegularFile(file)) {
            if (BinaryFiles.binaryMime(file) != null)
                throw new ToolFailure("Cannot patch binary file " + names.get(file));
            content = new String(Files.readAllBytes(file), UTF_8);
        }
        original.put(file, content);
        state.put(file, content);
        return content;
    }
}
