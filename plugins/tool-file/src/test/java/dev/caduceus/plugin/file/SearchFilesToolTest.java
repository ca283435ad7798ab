package dev.caduceus.plugin.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SearchFilesToolTest {
    @TempDir Path temp;

    /** A host over a small tree; the caller closes it. */
    private Fixture tree() throws Exception {
        var f = new Fixture(temp);
        Files.createDirectories(f.workspace.resolve("src/.git"));
        Files.createDirectories(f.workspace.resolve("node_modules"));
        Files.writeString(f.workspace.resolve("src/b.py"), "x = 1\nTODO later\n");
        Files.writeString(f.workspace.resolve("src/a.py"), "TODO first\nok\nTODO again\n");
        Files.writeString(f.workspace.resolve("src/.git/config"), "TODO git\n");
        Files.writeString(f.workspace.resolve("node_modules/m.js"), "TODO dep\n");
        Files.write(f.workspace.resolve("bin.dat"), new byte[] {'T', 'O', 'D', 'O', 0});
        Files.setLastModifiedTime(f.workspace.resolve("src/a.py"), FileTime.fromMillis(1_000_000));
        return f;
    }

    @Test
    void contentSearchOrderedByPathThenLineSkippingIgnoredAndBinary() throws Exception {
        try (var f = tree()) {
            assertEquals("{\"total_count\": 3, \"matches\": [{\"path\": \"src/a.py\", \"line\": 1, \"content\": \"TODO first\"}, "
                    + "{\"path\": \"src/a.py\", \"line\": 3, \"content\": \"TODO again\"}, "
                    + "{\"path\": \"src/b.py\", \"line\": 2, \"content\": \"TODO later\"}]}",
                    f.text("search_files", "{\"pattern\": \"TODO\"}"));
        }
    }

    @Test
    void pagesWithLimitAndOffsetAndHint() throws Exception {
        try (var f = tree()) {
            var r = f.json("search_files", "{\"pattern\": \"TODO\", \"limit\": 2}");
            assertEquals(2, r.get("matches").size());
            assertTrue(r.get("truncated").asBoolean());
            assertEquals("Results truncated. Use offset=2 to see more, or narrow the pattern or file_glob.",
                    r.get("_hint").asText());
            var next = f.json("search_files", "{\"pattern\": \"TODO\", \"limit\": 2, \"offset\": 2}");
            assertEquals("src/b.py", next.get("matches").get(0).get("path").asText());
            assertFalse(next.has("truncated"));
        }
    }

    @Test
    void filesOnlyCountGlobAndContext() throws Exception {
        try (var f = tree()) {
            assertEquals("{\"total_count\": 2, \"files\": [\"src/a.py\", \"src/b.py\"]}",
                    f.text("search_files", "{\"pattern\": \"TODO\", \"output_mode\": \"files_only\"}"));
            assertEquals("{\"total_count\": 2, \"counts\": {\"src/a.py\": 2, \"src/b.py\": 1}}",
                    f.text("search_files", "{\"pattern\": \"TODO\", \"output_mode\": \"count\"}"));
            assertEquals(1, f.json("search_files", "{\"pattern\": \"TODO\", \"file_glob\": \"b*\"}").get("total_count").asInt());
            var ctx = f.json("search_files", "{\"pattern\": \"later\", \"context\": 1}");
            assertEquals(2, ctx.get("matches").size());
            assertEquals("x = 1", ctx.get("matches").get(0).get("content").asText());
        }
    }

    @Test
    void fileSearchByGlobNewestFirst() throws Exception {
        try (var f = tree()) {
            assertEquals("{\"total_count\": 2, \"files\": [\"src/b.py\", \"src/a.py\"]}",
                    f.text("search_files", "{\"pattern\": \"*.py\", \"target\": \"files\"}"));
            assertEquals(1, f.json("search_files", "{\"pattern\": \"*.py\", \"target\": \"find\", \"limit\": 1}")
                    .get("files").size());
        }
    }

    @Test
    void errorsForBadRegexAndArguments() throws Exception {
        try (var f = tree()) {
            assertTrue(f.json("search_files", "{\"pattern\": \"(\"}").get("error").asText().startsWith("Invalid regex: "));
            assertTrue(f.json("search_files", "{}").has("error"));
            assertTrue(f.json("search_files", "{\"pattern\": \"x\", \"target\": 3}").has("error"));
            assertEquals("Path not found: nope", f.json("search_files", "{\"pattern\": \"x\", \"path\": \"nope\"}")
                    .get("error").asText());
        }
    }
}
