package dev.caduceus.plugin.file;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

/**
 * {@code patch}: {@code replace} mode edits one file through {@link ReplaceEdit};
 * {@code patch} mode applies a V4A patch ({@link V4aPatch}, {@link V4aApplier}) to several files,
 * all or none ({@link ChangeSet}). Results carry a unified diff; errors are
 * {@code {"success": false, "error": …}}. Thread-safe.
 */
final class PatchTool implements Tool {
    private static final int FAILURES_BEFORE_REREAD = 3;

    private final FileFamily family;
    private final ToolSpec spec;

    PatchTool(FileFamily family) {
        this.family = family;
        this.spec = new ToolSpec("patch", "Edit files. mode=replace: replace old_string with new_string in path "
                + "(old_string must be unique unless replace_all). mode=patch: apply a V4A patch "
                + "(*** Begin Patch / *** Update File: p / @@ / -old / +new / *** End Patch) to several files at once.",
                schema(), "file", List.of(), ToolRisk.WRITES_WORKSPACE, 100_000, false, false, "🩹");
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public ToolResult call(ToolCall call, ToolContext ctx) {
        family.repeats().reset(ctx.sessionId());
        var args = new Args(call.arguments());
        try {
            var mode = args.has("mode") ? args.string("mode") : "replace";
            if ("replace".equals(mode)) return HermesJson.ok(replace(args, ctx));
            if ("patch".equals(mode)) return HermesJson.ok(v4a(args, ctx));
            throw new ToolFailure("Unknown mode: " + (mode == null ? call.arguments().get("mode") : mode));
        } catch (ToolFailure f) {
            return HermesJson.ok(HermesJson.object().put("success", false).setAll(f.result()));
        } catch (IOException | RuntimeException e) {
            return HermesJson.ok(HermesJson.object().put("success", false).put("error", "Failed to patch: " + e.getMessage()));
        }
    }

    private ObjectNode replace(Args args, ToolContext ctx) throws ToolFailure, IOException {
        var raw = args.string("path");
        if (raw == null || raw.isBlank()) throw new ToolFailure("path required");
        var oldText = args.string("old_string");
        var newText = args.string("new_string");
        if (oldText == null || newText == null) throw new ToolFailure("old_string and new_string required");
        if (oldText.isEmpty())
            throw new ToolFailure("old_string is empty; patch edits existing text. Use write_file to create a file "
                    + "or to replace its whole content.");
        var file = family.guard(ctx).forWrite(raw);
        if (Files.isDirectory(file)) throw new ToolFailure(raw + " is a directory");
        if (!Files.isRegularFile(file)) throw new ToolFailure("File not found: " + raw);
        if (BinaryFiles.binaryMime(file) != null) throw new ToolFailure("Cannot patch binary file " + raw);
        var before = new String(Files.readAllBytes(file), UTF_8);
        String after;
        try {
            after = ReplaceEdit.apply(before, oldText, newText, args.bool("replace_all", false));
        } catch (ReplaceEdit.Mismatch m) {
            throw mismatch(ctx, raw, file.toString(), m.matches);
        }
        family.repeats().patched(ctx.sessionId(), file.toString());
        ChangeSet.apply(List.of(new FileChange(file, raw, before, after)));
        var out = HermesJson.object().put("success", true).put("diff", UnifiedDiff.of(raw, before, after));
        out.putArray("files_modified").add(raw);
        var lint = Lint.check(file, after);
        if (lint != null) out.set("lint", lint);
        return out;
    }

    private ToolFailure mismatch(ToolContext ctx, String raw, String key, int matches) {
        if (matches > 1)
            return new ToolFailure("old_string matches " + matches + " places in " + raw
                    + "; add context or set replace_all");
        int failures = family.repeats().patchFailed(ctx.sessionId(), key);
        var hint = failures >= FAILURES_BEFORE_REREAD
                ? "old_string not found " + failures + " times in a row. Re-read the file with read_file, "
                        + "or rewrite it with write_file."
                : "old_string not found. Use read_file to check the current text.";
        return new ToolFailure(HermesJson.error("Could not find old_string in " + raw).put("_hint", hint));
    }

    private ObjectNode v4a(Args args, ToolContext ctx) throws ToolFailure, IOException {
        var text = args.string("patch");
        if (text == null || text.isBlank()) throw new ToolFailure("patch content required");
        var patch = V4aPatch.parse(text);
        var changes = new V4aApplier(family.guard(ctx)).plan(patch);
        ChangeSet.apply(changes);
        var diff = new StringBuilder();
        var out = HermesJson.object().put("success", true);
        var modified = JsonNodeFactory.instance.arrayNode();
        var created = JsonNodeFactory.instance.arrayNode();
        var deleted = JsonNodeFactory.instance.arrayNode();
        var lint = HermesJson.object();
        for (var c : changes) {
            diff.append(UnifiedDiff.of(c.name(), c.before(), c.after()));
            (c.created() ? created : c.deleted() ? deleted : modified).add(c.name());
            var l = c.after() == null ? null : Lint.check(c.file(), c.after());
            if (l != null) lint.set(c.name(), l);
        }
        out.put("diff", diff.toString());
        if (!modified.isEmpty()) out.set("files_modified", modified);
        if (!created.isEmpty()) out.set("files_created", created);
        if (!deleted.isEmpty()) out.set("files_deleted", deleted);
        if (!lint.isEmpty()) out.set("lint", lint);
        return out;
    }

    private static ObjectNode schema() {
        var schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        var props = schema.putObject("properties");
        var mode = props.putObject("mode").put("type", "string");
        mode.putArray("enum").add("replace").add("patch");
        mode.put("default", "replace");
        props.putObject("path").put("type", "string").put("description", "file to edit (replace mode)");
        props.putObject("old_string").put("type", "string")
                .put("description", "text to find; must be unique unless replace_all");
        props.putObject("new_string").put("type", "string").put("description", "replacement; empty string deletes");
        props.putObject("replace_all").put("type", "boolean").put("default", false);
        props.putObject("patch").put("type", "string").put("description", "V4A patch text (patch mode)");
        schema.putArray("required").add("mode");
        return schema;
    }
}
