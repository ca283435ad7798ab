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
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code read_file}: numbered lines {@code N|text} of a text file, a window of
 * {@code offset}/{@code limit} lines, invalid UTF-8 decoded as U+FFFD. Thread-safe.
 */
final class ReadFileTool implements Tool {
    static final int DEFAULT_LIMIT = 500;
    static final int MAX_LIMIT = 2000;
    static final int MAX_LINE_CHARS = 2000;

    private final FileFamily family;
    private final ToolSpec spec;

    ReadFileTool(FileFamily family) {
        this.family = family;
        this.spec = new ToolSpec("read_file", "Read a text file with line numbers (N|text), "
                + "a window of lines at a time (offset is 1-based, limit at most 2000). "
                + "Use this instead of cat/head/tail in the terminal.", schema(), "file", List.of(),
                ToolRisk.READ_ONLY, 100_000, true, false, "📖", true);
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public ToolResult call(ToolCall call, ToolContext ctx) {
        try {
            return HermesJson.ok(read(new Args(call.arguments()), ctx));
        } catch (ToolFailure f) {
            return HermesJson.failure(f);
        } catch (IOException | RuntimeException e) {
            return new ToolResult.Error("Failed to read file: " + e.getMessage(), false);
        }
    }

    private ObjectNode read(Args args, ToolContext ctx) throws ToolFailure, IOException {
        var raw = args.string("path");
        if (raw == null || raw.isBlank()) throw new ToolFailure("path is required and must be a string");
        int offset = Math.max(1, args.integer("offset", 1));
        int limit = Math.min(MAX_LIMIT, Math.max(1, args.integer("limit", DEFAULT_LIMIT)));
        var file = family.guard(ctx).forRead(raw);
        check(raw, file);
        long size = Files.size(file);
        var key = file + "\u0000" + offset + "\u0000" + limit + "\u0000" + size + "\u0000" + Files.getLastModifiedTime(file);
        int repeats = family.repeats().read(ctx.sessionId(), ctx.runId(), key);
        if (repeats >= RepeatGuard.BLOCK_AT) {
            var blocked = HermesJson.error("BLOCKED: You have read this exact file region " + repeats
                    + " times in a row. Use what you already have.");
            throw new ToolFailure(blocked.put("path", raw).put("already_read", repeats));
        }
        var window = window(file, offset, limit);
        if (window.produced() > family.settings().maxReadChars()) {
            var tooBig = HermesJson.error(String.format(Locale.ROOT,
                    "Read produced %,d characters which exceeds the safety limit (%,d chars). Use offset and limit.",
                    window.produced(), family.settings().maxReadChars()));
            throw new ToolFailure(tooBig.put("path", raw).put("total_lines", window.totalLines()).put("file_size", size));
        }
        var out = HermesJson.object().put("content", window.content()).put("total_lines", window.totalLines())
                .put("file_size", size);
        int last = offset + window.shown() - 1;
        boolean truncated = window.shown() > 0 && last < window.totalLines();
        out.put("truncated", truncated);
        if (truncated)
            out.put("hint", "Use offset=" + (last + 1) + " to continue reading (showing " + offset + "-" + last
                    + " of " + window.totalLines() + " lines)");
        if (repeats == RepeatGuard.WARN_AT)
            out.put("_warning", "You have read this exact region " + repeats + " times in a row.");
        return out;
    }

    /** The errors before reading, in the spec's order: device, directory, not found, binary. */
    private static void check(String raw, Path file) throws ToolFailure, IOException {
        var s = file.toString();
        if (s.startsWith("/dev/") || s.matches("/proc/[^/]+/fd(/.*)?") || raw.startsWith("/dev/")
                || (Files.exists(file) && !Files.isDirectory(file) && !Files.isRegularFile(file)))
            throw new ToolFailure("Cannot read " + raw + ": device files and pipes are not readable.");
        if (Files.isDirectory(file))
            throw new ToolFailure(raw + " is a directory. Use search_files with target='files' to list it.");
        if (!Files.exists(file)) {
            var missing = HermesJson.error("File not found: " + raw);
            var similar = missing.putArray("similar_files");
            SimilarNames.near(file).forEach(similar::add);
            throw new ToolFailure(missing);
        }
        var mime = BinaryFiles.binaryMime(file);
        if (mime != null) {
            var binary = HermesJson.error("Cannot read binary file " + raw + " (" + mime + ")");
            throw new ToolFailure(binary.put("is_binary", true).put("is_image", mime.startsWith("image/"))
                    .put("mime_type", mime));
        }
    }

    /** The numbered lines of one window (kept only up to the limit), their full length, the file's line count. */
    private record Window(String content, long produced, int shown, int totalLines) {}

    private Window window(Path file, int offset, int limit) throws IOException {
        var decoder = UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        var sb = new StringBuilder();
        int total = 0;
        int shown = 0;
        long produced = 0;
        long cap = family.settings().maxReadChars();
        try (var in = new BufferedReader(new InputStreamReader(Files.newInputStream(file), decoder))) {
            for (String line; (line = in.readLine()) != null; ) {
                total++;
                if (total < offset || shown >= limit) continue;
                if (line.length() > MAX_LINE_CHARS) line = line.substring(0, MAX_LINE_CHARS) + "... [truncated]";
                var numbered = (shown > 0 ? "\n" : "") + total + "|" + line;
                produced += numbered.length();
                if (produced <= cap) sb.append(numbered);
                shown++;
            }
        }
        return new Window(sb.toString(), produced, shown, total);
    }

    private static ObjectNode schema() {
        var f = JsonNodeFactory.instance;
        var schema = f.objectNode().put("type", "object");
        var props = schema.putObject("properties");
        props.putObject("path").put("type", "string").put("description", "absolute, relative or ~/ path");
        props.putObject("offset").put("type", "integer").put("default", 1).put("minimum", 1)
                .put("description", "first line, 1-based");
        props.putObject("limit").put("type", "integer").put("default", DEFAULT_LIMIT).put("maximum", MAX_LIMIT)
                .put("description", "max lines");
        schema.putArray("required").add("path");
        return schema;
    }
}
