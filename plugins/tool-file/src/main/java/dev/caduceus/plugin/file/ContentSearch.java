package dev.caduceus.plugin.file;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The content half of {@code search_files}: a Java regex applied to each line of each text file,
 * matches ordered by path then line, one page ({@code offset}, {@code limit}) kept. Not thread-safe;
 * one per call.
 */
final class ContentSearch {
    static final long MAX_FILE_BYTES = 10L * 1024 * 1024;
    static final int MAX_LINE_CHARS = 2000;

    private final Pattern regex;
    private final String mode;
    private final int offset;
    private final int limit;
    private final int context;
    private final ArrayNode matches = JsonNodeFactory.instance.arrayNode();
    private final ArrayNode files = JsonNodeFactory.instance.arrayNode();
    private final ObjectNode counts = JsonNodeFactory.instance.objectNode();
    private int total;

    /** @param mode {@code content}, {@code files_only} or {@code count} */
    ContentSearch(Pattern regex, String mode, int offset, int limit, int context) {
        this.regex = regex;
        this.mode = mode;
        this.offset = offset;
        this.limit = limit;
        this.context = context;
    }

    /** Searches the files (already filtered by glob), in path order. */
    void run(List<TreeWalk.Found> found, PathGuard guard) {
        for (var f : found) {
            if (f.size() > MAX_FILE_BYTES) continue;
            try {
                if (BinaryFiles.binaryMime(f.file()) != null) continue;
                search(f, guard.display(f.file()));
            } catch (IOException | RuntimeException e) {
                // unreadable file: skipped like a binary one
            }
        }
    }

    private void search(TreeWalk.Found f, String name) throws IOException {
        var decoder = UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        var before = new ArrayDeque<String[]>();
        int n = 0;
        int inFile = 0;
        int lastEmitted = 0;
        int afterLeft = 0;
        try (var in = new BufferedReader(new InputStreamReader(Files.newInputStream(f.file()), decoder))) {
            for (String line; (line = in.readLine()) != null; ) {
                n++;
                if (regex.matcher(line).find()) {
                    int index = mode.equals("content") ? total : -1;
                    total += mode.equals("content") ? 1 : 0;
                    inFile++;
                    if (index >= offset && index < offset + limit) {
                        for (var b : before) if (Integer.parseInt(b[0]) > lastEmitted) add(name, Integer.parseInt(b[0]), b[1]);
                        add(name, n, line);
                        lastEmitted = n;
                        afterLeft = context;
                    }
                } else if (afterLeft > 0) {
                    add(name, n, line);
                    lastEmitted = n;
                    afterLeft--;
                }
                if (context > 0) {
                    before.addLast(new String[] {String.valueOf(n), line});
                    if (before.size() > context) before.removeFirst();
                }
            }
        }
        if (inFile == 0 || mode.equals("content")) return;
        if (total >= offset && total < offset + limit) {
            if (mode.equals("files_only")) files.add(name);
            else counts.put(name, inFile);
        }
        total++;
    }

    private void add(String name, int line, String text) {
        var shown = text.length() > MAX_LINE_CHARS ? text.substring(0, MAX_LINE_CHARS) + "... [truncated]" : text;
        matches.addObject().put("path", name).put("line", line).put("content", shown);
    }

    /** The {@code search_files} result object, empty fields omitted. */
    ObjectNode result() {
        var out = HermesJson.object().put("total_count", total);
        if (!matches.isEmpty()) out.set("matches", matches);
        if (!files.isEmpty()) out.set("files", files);
        if (!counts.isEmpty()) out.set("counts", counts);
        return out;
    }

    int total() {
        return total;
    }
}
