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
import java.util.regex.Pattern;

/**
 * {@code write_file}: replaces a whole file atomically, creating parent
 * directories and keeping an existing file's mode. Thread-safe.
 */
final class WriteFileTool implements Tool {
    private static final Pattern NUMBERED = Pattern.compile("^\\s*(\\d+)\\|");

    private final FileFamily family;
    private final ToolSpec spec;

    WriteFileTool(FileFamily family) {
        this.family = family;
        this.spec = new ToolSpec("write_file", "Write a complete file (replaces its whole content; parent "
                + "directories are created). Use patch for small edits to an existing file.", schema(), "file",
                List.of(), ToolRisk.WRITES_WORKSPACE, 100_000, false, false, "✍️");
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public ToolResult call(ToolCall call, ToolContext ctx) {
        family.repeats().reset(ctx.sessionId());
        try {
            return HermesJson.ok(write(new Args(call.arguments()), ctx));
        } catch (ToolFailure f) {
            return HermesJson.failure(f);
        } catch (IOException | RuntimeException e) {
            return new ToolResult.Error("Failed to write file: " + e.getMessage(), false);
        }
    }

    private ObjectNode write(Args args, ToolContext ctx) throws ToolFailure, IOException {
        var raw = args.string("path");
        var content = args.string("content");
        if (raw == null || raw.isBlank() || content == null)
            throw new ToolFailure("write_file requires both 'path' and 'content' as strings. "
                    + "Send the call again with both.");
        if (looksNumbered(content))
            throw new ToolFailure("content looks like read_file output with line numbers; "
                    + "write the file content without the N| prefixes");
        var file = family.guard(ctx).forWrite(raw);
        if (Files.isDirectory(file)) throw new ToolFailure(raw + " is a directory; write_file needs a file path.");
        var bytes = content.getBytes(UTF_8);
        boolean created = AtomicFiles.createParents(file);
        AtomicFiles.write(file, bytes);
        var out = HermesJson.object().put("bytes_written", bytes.length).put("dirs_created", created)
                .put("resolved_path", file.toString());
        var lint = Lint.check(file, content);
        if (lint != null) out.set("lint", lint);
        return out;
    }

    /** The echo guard: ≥ 2 non-empty lines, ≥ 60 % of them {@code N|…} with consecutive numbers. */
    static boolean looksNumbered(String content) {
        int nonEmpty = 0;
        int consecutive = 0;
        long previous = Long.MIN_VALUE;
        for (var line : content.split("\n", -1)) {
            if (line.isBlank()) continue;
            nonEmpty++;
            var m = NUMBERED.matcher(line);
            if (!m.find() || m.group(1).length() > 12) continue;
            long n = Long.parseLong(m.group(1));
            if (consecutive == 0 || n == previous + 1) consecutive++;
            previous = n;
        }
        return nonEmpty >= 2 && consecutive >= 0.6 * nonEmpty;
    }

    private static ObjectNode schema() {
        var schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        var props = schema.putObject("properties");
        props.putObject("path").put("type", "string");
        props.putObject("content").put("type", "string").put("description", "complete new file content");
        schema.putArray("required").add("path").add("content");
        return schema;
    }
}
