package dev.caduceus.plugin.file;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code search_files}: regex search of file contents ({@link ContentSearch}) or
 * glob search of file names, newest first. Paths in results are relative to the workspace when
 * inside it. Thread-safe.
 */
final class SearchFilesTool implements Tool {
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_CONTEXT = 20;

    private final FileFamily family;
    private final ToolSpec spec;

    SearchFilesTool(FileFamily family) {
        this.family = family;
        this.spec = new ToolSpec("search_files", "Search file contents with a regular expression (target=content) "
                + "or find files by glob (target=files). Use this instead of grep/find in the terminal.", schema(),
                "file", List.of(), ToolRisk.READ_ONLY, 100_000, true, false, "🔎", true);
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public ToolResult call(ToolCall call, ToolContext ctx) {
        try {
            return HermesJson.ok(search(new Args(call.arguments()), ctx));
        } catch (ToolFailure f) {
            return HermesJson.failure(f);
        } catch (IOException | RuntimeException e) {
            return new ToolResult.Error("Search failed: " + e.getMessage(), false);
        }
    }

    /** The validated arguments of one search. */
    private record Query(String pattern, String target, String path, String fileGlob, int limit, int offset,
                         String outputMode, int context) {}

    private ObjectNode search(Args args, ToolContext ctx) throws ToolFailure, IOException {
        var q = query(args);
        var guard = family.guard(ctx);
        var root = guard.forRead(q.path());
        if (!Files.exists(root)) throw new ToolFailure("Path not found: " + q.path());
        int repeats = family.repeats().search(ctx.sessionId(), ctx.runId(), q.toString());
        if (repeats >= RepeatGuard.BLOCK_AT) {
            var blocked = HermesJson.error("BLOCKED: You have run this exact search " + repeats
                    + " times in a row. Use what you already have.");
            throw new ToolFailure(blocked.put("pattern", q.pattern()).put("already_searched", repeats));
        }
        var found = TreeWalk.files(root, guard, ctx.cancellation());
        ObjectNode out;
        int total;
        if (q.target().equals("files")) {
            var matcher = glob(q.pattern());
            var hits = found.stream().filter(f -> matches(matcher, q.pattern(), root, f.file()))
                    .sorted(Comparator.comparingLong(TreeWalk.Found::modified).reversed()
                            .thenComparing(f -> f.file().toString()))
                    .toList();
            total = hits.size();
            out = HermesJson.object().put("total_count", total);
            var files = JsonNodeFactory.instance.arrayNode();
            hits.stream().skip(q.offset()).limit(q.limit()).forEach(f -> files.add(guard.display(f.file())));
            if (!files.isEmpty()) out.set("files", files);
        } else {
            Pattern regex;
            try {
                regex = Pattern.compile(q.pattern());
            } catch (PatternSyntaxException e) {
                throw new ToolFailure("Invalid regex: " + e.getMessage());
            }
            var fileGlob = q.fileGlob() == null ? null : glob(q.fileGlob());
            var search = new ContentSearch(regex, q.outputMode(), q.offset(), q.limit(), q.context());
            search.run(found.stream()
                    .filter(f -> fileGlob == null || matches(fileGlob, q.fileGlob(), root, f.file()))
                    .sorted(Comparator.comparing(f -> guard.display(f.file()))).toList(), guard);
            total = search.total();
            out = search.result();
        }
        if (total > q.offset() + q.limit()) {
            out.put("truncated", true);
            out.put("_hint", "Results truncated. Use offset=" + (q.offset() + q.limit())
                    + " to see more, or narrow the pattern or file_glob.");
        }
        if (repeats == RepeatGuard.WARN_AT)
            out.put("_warning", "You have run this exact search " + repeats + " times in a row.");
        return out;
    }

    private static Query query(Args args) throws ToolFailure {
        var pattern = args.string("pattern");
        if (pattern == null || pattern.isEmpty()) throw new ToolFailure("pattern is required and must be a string");
        for (var name : List.of("target", "path", "file_glob", "output_mode")) {
            var wrong = args.wrongType(name, "string");
            if (wrong != null) throw new ToolFailure(wrong);
        }
        var target = switch (args.has("target") ? args.string("target") : "content") {
            case "content", "grep" -> "content";
            case "files", "find" -> "files";
            default -> throw new ToolFailure("Unknown target: " + args.string("target") + " (use 'content' or 'files')");
        };
        var mode = args.has("output_mode") ? args.string("output_mode") : "content";
        if (!List.of("content", "files_only", "count").contains(mode))
            throw new ToolFailure("Unknown output_mode: " + mode + " (use 'content', 'files_only' or 'count')");
        var path = args.has("path") && !args.string("path").isBlank() ? args.string("path") : ".";
        return new Query(pattern, target, path, args.string("file_glob"),
                Math.max(1, args.integer("limit", DEFAULT_LIMIT)), Math.max(0, args.integer("offset", 0)), mode,
                Math.min(MAX_CONTEXT, Math.max(0, args.integer("context", 0))));
    }

    /** A glob; a pattern without wildcards matches names containing it. */
    private static PathMatcher glob(String pattern) throws ToolFailure {
        var effective = pattern.matches(".*[*?\\[{].*") ? pattern : "*" + pattern + "*";
        try {
            return FileSystems.getDefault().getPathMatcher("glob:" + effective);
        } catch (RuntimeException e) {
            throw new ToolFailure("Invalid glob: " + e.getMessage());
        }
    }

    /** Globs with a {@code /} match the path relative to the search root; others the file name. */
    private static boolean matches(PathMatcher matcher, String pattern, Path root, Path file) {
        var relative = file.equals(root) ? file.getFileName() : root.relativize(file);
        return matcher.matches(pattern.contains("/") ? relative : file.getFileName());
    }

    private static ObjectNode schema() {
        var schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        var props = schema.putObject("properties");
        props.putObject("pattern").put("type", "string").put("description", "regex for content, glob for files");
        var target = props.putObject("target").put("type", "string");
        target.putArray("enum").add("content").add("files");
        target.put("default", "content");
        props.putObject("path").put("type", "string").put("default", ".");
        props.putObject("file_glob").put("type", "string").put("description", "only search files matching this glob");
        props.putObject("limit").put("type", "integer").put("default", DEFAULT_LIMIT);
        props.putObject("offset").put("type", "integer").put("default", 0);
        var mode = props.putObject("output_mode").put("type", "string");
        mode.putArray("enum").add("content").add("files_only").add("count");
        mode.put("default", "content");
        props.putObject("context").put("type", "integer").put("default", 0)
                .put("description", "lines of context around content matches");
        schema.putArray("required").add("pattern");
        return schema;
    }
}
