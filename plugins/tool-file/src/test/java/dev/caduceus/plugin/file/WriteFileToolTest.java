package dev.caduceus.plugin.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteFileToolTest {
    @TempDir Path temp;

    @Test
    void createsParentsAndReportsInHermesShape() throws Exception {
        try (var f = new Fixture(temp)) {
            var r = f.text("write_file", "{\"path\": \"a/b/c.txt\", \"content\": \"héllo\\n\"}");
            var file = f.workspace.resolve("a/b/c.txt");
            assertEquals("{\"bytes_written\": 7, \"dirs_created\": true, \"resolved_path\": \"" + file + "\"}", r);
            assertEquals("héllo\n", Files.readString(file));
        }
    }

    @Test
    void replacesAtomicallyKeepsModeAndLeavesNoTempFiles() throws Exception {
        try (var f = new Fixture(temp)) {
            var file = Files.writeString(f.workspace.resolve("run.sh"), "old");
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-x---"));
            assertTrue(f.json("write_file", "{\"path\": \"run.sh\", \"content\": \"new\"}").has("bytes_written"));
            assertEquals("new", Files.readString(file));
            assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            try (var list = Files.list(f.workspace)) {
                assertEquals(1, list.count());
            }
        }
    }

    @Test
    void aFailedWriteLeavesTheOldFileAndNoTempFile() throws Exception {
        try (var f = new Fixture(temp)) {
            var dir = Files.createDirectories(f.workspace.resolve("d/x.txt"));
            Files.writeString(dir.resolve("keep.txt"), "kept");
            assertTrue(f.json("write_file", "{\"path\": \"d/x.txt\", \"content\": \"x\"}").has("error"));
            assertEquals("kept", Files.readString(dir.resolve("keep.txt")));
        }
    }

    @Test
    void aWriteIntoAReadOnlyDirectoryFailsCleanly() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse("root".equals(System.getProperty("user.name")),
                "root ignores directory permissions");
        try (var f = new Fixture(temp)) {
            var ro = Files.createDirectories(f.workspace.resolve("ro"));
            var old = Files.writeString(ro.resolve("f.txt"), "old");
            Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("r-x------"));
            try {
                assertTrue(f.json("write_file", "{\"path\": \"ro/f.txt\", \"content\": \"new\"}").get("error").asText()
                        .startsWith("Failed to write file"));
                assertEquals("old", Files.readString(old));
                try (var list = Files.list(ro)) {
                    assertEquals(1, list.count());
                }
            } finally {
                Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("rwx------"));
            }
        }
    }

    @Test
    void lintsJson() {
        try (var f = new Fixture(temp)) {
            assertEquals("{\"status\": \"ok\"}", f.json("write_file", "{\"path\": \"a.json\", \"content\": \"{\\\"a\\\": 1}\"}")
                    .get("lint").toString().replace(":", ": "));
            assertEquals("error", f.json("write_file", "{\"path\": \"b.json\", \"content\": \"{\\\"a\\\": }\"}")
                    .get("lint").get("status").asText());
        }
    }

    @Test
    void refusesReadFileEchoAndBadArguments() {
        try (var f = new Fixture(temp)) {
            var echo = f.json("write_file", "{\"path\": \"x.py\", \"content\": \"1|import os\\n2|print(1)\\n\"}");
            assertTrue(echo.get("error").asText().contains("looks like read_file output with line numbers"));
            assertTrue(f.json("write_file", "{\"path\": \"x.py\"}").get("error").asText().contains("both"));
            assertTrue(f.json("write_file", "{\"path\": \"x.py\", \"content\": [5]}").has("error"));
            // a number where the schema says string is coerced by the host before the tool sees it
            assertTrue(f.json("write_file", "{\"path\": \"x.py\", \"content\": 5}").has("bytes_written"));
            assertTrue(f.json("write_file", "{\"path\": \"x.py\", \"content\": \"a|b\\nc|d\"}").has("bytes_written"));
        }
    }
}
