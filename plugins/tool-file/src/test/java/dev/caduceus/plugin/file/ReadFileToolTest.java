package dev.caduceus.plugin.file;

import static dev.caduceus.plugin.file.Fixture.q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.ScriptedUpstream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReadFileToolTest {
    @TempDir Path temp;

    @Test
    void numbersLinesInHermesShape() throws Exception {
        try (var f = new Fixture(temp)) {
            Files.writeString(f.workspace.resolve("a.py"), "def main():\r\n    print(\"é\")\n");
            assertEquals("{\"content\": \"1|def main():\\n2|    print(\\\"é\\\")\", \"total_lines\": 2, "
                    + "\"file_size\": 29, \"truncated\": false}", f.text("read_file", "{\"path\": \"a.py\"}"));
        }
    }

    @Test
    void offsetAndLimitWindowWithHint() throws Exception {
        try (var f = new Fixture(temp)) {
            var sb = new StringBuilder();
            for (int i = 1; i <= 10; i++) sb.append("line ").append(i).append('\n');
            Files.writeString(f.workspace.resolve("t.txt"), sb);
            var r = f.json("read_file", "{\"path\": \"t.txt\", \"offset\": 3, \"limit\": 2}");
            assertEquals("3|line 3\n4|line 4", r.get("content").asText());
            assertTrue(r.get("truncated").asBoolean());
            assertEquals("Use offset=5 to continue reading (showing 3-4 of 10 lines)", r.get("hint").asText());
            var clamped = f.json("read_file", "{\"path\": \"t.txt\", \"offset\": 0, \"limit\": \"x\"}");
            assertEquals(10, clamped.get("content").asText().split("\n").length);
            assertFalse(clamped.has("hint"));
        }
    }

    @Test
    void cutsVeryLongLines() throws Exception {
        try (var f = new Fixture(temp)) {
            Files.writeString(f.workspace.resolve("long.txt"), "x".repeat(2500));
            assertEquals("1|" + "x".repeat(2000) + "... [truncated]",
                    f.json("read_file", "{\"path\": \"long.txt\"}").get("content").asText());
        }
    }

    @Test
    void refusesOutputAboveMaxReadChars() throws Exception {
        try (var f = new Fixture(temp, Map.of("file.max_read_chars", "1000"))) {
            Files.writeString(f.workspace.resolve("big.txt"), ("y".repeat(99) + "\n").repeat(100));
            var r = f.text("read_file", "{\"path\": \"big.txt\"}");
            assertEquals("{\"error\": \"Read produced 10,291 characters which exceeds the safety limit (1,000 chars). "
                    + "Use offset and limit.\", \"path\": \"big.txt\", \"total_lines\": 100, \"file_size\": 10000}", r);
        }
    }

    @Test
    void refusesBinaryFiles() throws Exception {
        try (var f = new Fixture(temp)) {
            Files.write(f.workspace.resolve("blob.dat"), new byte[] {1, 2, 0, 3});
            Files.write(f.workspace.resolve("pic.png"), new byte[] {1});
            assertEquals("{\"error\": \"Cannot read binary file blob.dat (application/octet-stream)\", \"is_binary\": true, "
                    + "\"is_image\": false, \"mime_type\": \"application/octet-stream\"}",
                    f.text("read_file", "{\"path\": \"blob.dat\"}"));
            assertTrue(f.json("read_file", "{\"path\": \"pic.png\"}").get("is_image").asBoolean());
        }
    }

    @Test
    void decodesInvalidUtf8WithReplacementCharacters() throws Exception {
        try (var f = new Fixture(temp)) {
            Files.write(f.workspace.resolve("latin1.txt"), new byte[] {'c', 'a', 'f', (byte) 0xE9, '\n'});
            assertEquals("1|caf\uFFFD", f.json("read_file", "{\"path\": \"latin1.txt\"}").get("content").asText());
        }
    }

    @Test
    void missingFileSuggestsSimilarNames() throws Exception {
        try (var f = new Fixture(temp)) {
            Files.writeString(f.workspace.resolve("config.yaml.example"), "");
            Files.writeString(f.workspace.resolve("settings.py"), "");
            var r = f.json("read_file", "{\"path\": \"setings.py\"}");
            assertEquals("File not found: setings.py", r.get("error").asText());
            assertEquals("settings.py", r.get("similar_files").get(0).asText());
        }
    }

    @Test
    void directoryAndMissingArgumentsAreErrors() throws Exception {
        try (var f = new Fixture(temp)) {
            Files.createDirectory(f.workspace.resolve("src"));
            assertEquals("{\"error\": \"src is a directory. Use search_files with target='files' to list it.\"}",
                    f.text("read_file", "{\"path\": \"src\"}"));
            assertTrue(f.json("read_file", "{}").has("error"));
            assertTrue(f.json("read_file", "{\"path\": 42}").has("error"));
        }
    }

    @Test
    void repeatGuardWarnsThenBlocks() throws Exception {
        try (var model = ScriptedUpstream.start(); var f = new Fixture(temp, model)) {
            Files.writeString(f.workspace.resolve("r.txt"), "x\n");
            var args = "{\"path\": " + q("r.txt") + "}";
            var run = f.turn("read_file", args, 4);
            assertFalse(f.JSON.readTree(run.get(1)).has("_warning"), run.get(1));
            assertEquals("You have read this exact region 3 times in a row.", f.JSON.readTree(run.get(2)).get("_warning").asText());
            assertEquals("{\"error\": \"BLOCKED: You have read this exact file region 4 times in a row. Use what you already "
                    + "have.\", \"path\": \"r.txt\", \"already_read\": 4}", run.get(3));
            var next = f.turn("read_file", args, 1); // the next run starts counting again
            assertFalse(f.JSON.readTree(next.get(0)).has("error"), next.get(0));
            // direct calls are a run each: never blocked
            for (int i = 0; i < 5; i++) assertFalse(f.json("read_file", args).has("error"));
        }
    }
}
