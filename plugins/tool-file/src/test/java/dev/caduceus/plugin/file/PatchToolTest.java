package dev.caduceus.plugin.file;

import static dev.caduceus.plugin.file.Fixture.q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PatchToolTest {
    @TempDir Path temp;

    private String replace(String path, String oldText, String newText, boolean all) {
        return "{\"mode\": \"replace\", \"path\": " + q(path) + ", \"old_string\": " + q(oldText)
                + ", \"new_string\": " + q(newText) + ", \"replace_all\": " + all + "}";
    }

    @Test
    void replacesAUniqueMatchAndReturnsADiff() throws Exception {
        try (var f = new Fixture(temp)) {
            var file = Files.writeString(f.workspace.resolve("app.py"), "a\nb\nc\n");
            assertEquals("{\"success\": true, \"diff\": \"--- a/app.py\\n+++ b/app.py\\n@@ -1,3 +1,3 @@\\n a\\n-b\\n+B\\n c\\n\", "
                    + "\"files_modified\": [\"app.py\"]}", f.text("patch", replace("app.py", "b", "B", false)));
            assertEquals("a\nB\nc\n", Files.readString(file));
        }
    }

    @Test
    void zeroAndSeveralMatchesAreErrorsAndReplaceAllReplacesEvery() throws Exception {
        try (var f = new Fixture(temp)) {
            var file = Files.writeString(f.workspace.resolve("x.txt"), "foo\nfoo\n");
            assertEquals("{\"success\": false, \"error\": \"old_string matches 2 places in x.txt; add context or set "
                    + "replace_all\"}", f.text("patch", replace("x.txt", "foo", "bar", false)));
            assertEquals("{\"success\": false, \"error\": \"Could not find old_string in x.txt\", \"_hint\": \"old_string not "
                    + "found. Use read_file to check the current text.\"}", f.text("patch", replace("x.txt", "zzz", "y", false)));
            f.text("patch", replace("x.txt", "zzz", "y", false));
            assertTrue(f.json("patch", replace("x.txt", "zzz", "y", false)).get("_hint").asText().contains("write_file"));
            assertEquals("foo\nfoo\n", Files.readString(file));
            assertTrue(f.json("patch", replace("x.txt", "foo", "bar", true)).get("success").asBoolean());
            assertEquals("bar\nbar\n", Files.readString(file));
        }
    }

    @Test
    void fallsBackToWhitespaceTolerantStrategiesAndReindents() throws Exception {
        try (var f = new Fixture(temp)) {
            var file = Files.writeString(f.workspace.resolve("m.py"), "def f():\n        x  = 1   \n        return x\n");
            assertTrue(f.json("patch", replace("m.py", "x = 1\nreturn x", "y = 2\nreturn y", false)).get("success").asBoolean());
            assertEquals("def f():\n        y = 2\n        return y\n", Files.readString(file));
        }
    }

    @Test
    void missingParametersAndUnknownModes() {
        try (var f = new Fixture(temp)) {
            assertEquals("path required", f.json("patch", "{\"mode\": \"replace\"}").get("error").asText());
            assertEquals("old_string and new_string required",
                    f.json("patch", "{\"mode\": \"replace\", \"path\": \"a\", \"old_string\": 3}").get("error").asText());
            assertEquals("patch content required", f.json("patch", "{\"mode\": \"patch\"}").get("error").asText());
            assertEquals("Unknown mode: diff", f.json("patch", "{\"mode\": \"diff\"}").get("error").asText());
            assertTrue(f.json("patch", replace("a", "", "x", false)).get("error").asText().contains("write_file"));
            assertEquals("File not found: nope.txt", f.json("patch", replace("nope.txt", "a", "b", false)).get("error").asText());
        }
    }

    @Test
    void v4aPatchUpdatesAddsAndDeletesAcrossFiles() throws Exception {
        try (var f = new Fixture(temp)) {
            Files.createDirectories(f.workspace.resolve("src"));
            var app = Files.writeString(f.workspace.resolve("src/app.py"),
                    "import os\n\ndef main():\n    print('hi')\n    return 0\n\ndef other():\n    pass\n");
            var old = Files.writeString(f.workspace.resolve("old.txt"), "bye\n");
            var patch = """
                    *** Begin Patch
                    *** Update File: src/app.py
                    @@ def main():
                         print('hi')
                    -    return 0
                    +    return 1
                    @@ def other():
                    -    pass
                    +    return 2
                    *** Add File: docs/new.md
                    +# New
                    +text
                    *** Delete File: old.txt
                    *** End Patch
                    """;
            var r = f.json("patch", "{\"mode\": \"patch\", \"patch\": " + q(patch) + "}");
            assertTrue(r.get("success").asBoolean(), r.toString());
            assertEquals("[\"src/app.py\"]", r.get("files_modified").toString());
            assertEquals("[\"docs/new.md\"]", r.get("files_created").toString());
            assertEquals("[\"old.txt\"]", r.get("files_deleted").toString());
            assertTrue(r.get("diff").asText().contains("--- /dev/null\n+++ b/docs/new.md\n"));
            assertEquals("import os\n\ndef main():\n    print('hi')\n    return 1\n\ndef other():\n    return 2\n",
                    Files.readString(app));
            assertEquals("# New\ntext\n", Files.readString(f.workspace.resolve("docs/new.md")));
            assertFalse(Files.exists(old));
        }
    }

    @Test
    void aFailingHunkLeavesEveryFileUnchanged() throws Exception {
        try (var f = new Fixture(temp)) {
            var a = Files.writeString(f.workspace.resolve("a.txt"), "one\ntwo\n");
            var b = Files.writeString(f.workspace.resolve("b.txt"), "three\n");
            var patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Delete File: b.txt\n"
                    + "*** Add File: c.txt\n+c\n*** Update File: a.txt\n@@\n-missing\n+x\n*** End Patch";
            var r = f.text("patch", "{\"mode\": \"patch\", \"patch\": " + q(patch) + "}");
            assertEquals("{\"success\": false, \"error\": \"hunk 1 of a.txt: context not found\"}", r);
            assertEquals("one\ntwo\n", Files.readString(a));
            assertEquals("three\n", Files.readString(b));
            assertFalse(Files.exists(f.workspace.resolve("c.txt")));
            try (var list = Files.list(f.workspace)) {
                assertEquals(2, list.count());
            }
        }
    }

    @Test
    void v4aRefusesDotDotHeadersAndMalformedPatches() {
        try (var f = new Fixture(temp)) {
            var up = "*** Begin Patch\n*** Add File: ../evil.txt\n+x\n*** End Patch";
            assertTrue(f.json("patch", "{\"mode\": \"patch\", \"patch\": " + q(up) + "}").get("error").asText().contains(".."));
            assertTrue(f.json("patch", "{\"mode\": \"patch\", \"patch\": \"hello\"}").get("error").asText()
                    .contains("Begin Patch"));
            assertFalse(Files.exists(f.workspace.resolve("../evil.txt")));
        }
    }
}
