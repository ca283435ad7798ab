package dev.caduceus.plugin.file;

import static dev.caduceus.plugin.file.Fixture.q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Protected files are refused by identity: hard links and symlinks to them, whatever their names. */
class ProtectedIdentityTest {
    private static final String KEY = "caduceus-key-0123456789abcdef";
    private static final String CONFIG = "model:\n  api_key: sk-upstream-0123456789\n";
    /** The start of the host's own database file, {@code caduceus.db}: the real SQLite file, not a stand-in. */
    private static final String DB = "SQLite format 3";

    @TempDir Path temp;

    /** The state files, written before the host starts (it creates {@code caduceus.db} itself). */
    private Path home() throws Exception {
        var home = Files.createDirectories(temp.resolve("home"));
        Files.writeString(home.resolve("api_key"), KEY + "\n");
        Files.writeString(home.resolve("config.yaml"), CONFIG);
        return home;
    }

    /** The host's database is still its own: the SQLite header, not what a tool would have written. */
    private static void assertDatabaseUntouched(Path home) throws Exception {
        var head = new String(Files.readAllBytes(home.resolve("caduceus.db")), 0, 16, java.nio.charset.StandardCharsets.ISO_8859_1);
        assertEquals(DB + "\0", head);
    }

    private static String refusal(String path) {
        return "Access to " + path + " is not allowed (protected file).";
    }

    private static String refused(String path) {
        return "{\"error\": \"" + refusal(path) + "\"}";
    }

    private static String replace(String path, String oldText, String newText) {
        return "{\"mode\": \"replace\", \"path\": " + q(path) + ", \"old_string\": " + q(oldText)
                + ", \"new_string\": " + q(newText) + "}";
    }

    /** read_file, write_file, patch (both modes) refuse {@code name}; search_files neither lists nor greps it. */
    private static void assertRefusedEverywhere(Fixture f, String name, String secretLine) {
        assertEquals(refused(name), f.text("read_file", "{\"path\": " + q(name) + "}"));
        assertEquals(refused(name), f.text("write_file", "{\"path\": " + q(name) + ", \"content\": \"x\"}"));
        assertEquals(refusal(name), f.json("patch", replace(name, secretLine, "x")).get("error").asText());
        var v4a = "*** Begin Patch\n*** Update File: " + name + "\n@@\n-" + secretLine + "\n+x\n*** End Patch";
        assertTrue(f.text("patch", "{\"mode\": \"patch\", \"patch\": " + q(v4a) + "}").contains("protected file"));
        var grep = f.text("search_files", "{\"pattern\": \"0123456789\"}");
        assertFalse(grep.contains(name) || grep.contains(secretLine.strip()), grep);
        var find = f.text("search_files", "{\"pattern\": \"*\", \"target\": \"files\"}");
        assertFalse(find.contains("\"" + name + "\""), find);
    }

    @Test
    void hardLinksToTheKeyConfigAndDatabaseAreRefusedByEveryTool() throws Exception {
        var home = home();
        try (var f = new Fixture(temp)) {
            Files.createLink(f.workspace.resolve("k.txt"), home.resolve("api_key"));
            Files.createLink(f.workspace.resolve("c.txt"), home.resolve("config.yaml"));
            Files.createDirectories(f.workspace.resolve("sub"));
            Files.createLink(f.workspace.resolve("sub/d.bin"), home.resolve("caduceus.db"));
            Files.writeString(f.workspace.resolve("plain.txt"), "nothing 0123456789 here\n");

            assertRefusedEverywhere(f, "k.txt", KEY);
            assertRefusedEverywhere(f, "c.txt", "  api_key: sk-upstream-0123456789");
            assertRefusedEverywhere(f, "sub/d.bin", DB);
            // the originals are untouched, and search still finds the ordinary file
            assertEquals(KEY + "\n", Files.readString(home.resolve("api_key")));
            assertEquals(CONFIG, Files.readString(home.resolve("config.yaml")));
            assertDatabaseUntouched(home);
            assertTrue(f.text("search_files", "{\"pattern\": \"0123456789\"}").contains("plain.txt"));
        }
    }

    @Test
    void aConfigFileOutsideTheStateDirectoryIsProtectedToo() throws Exception {
        home();
        var elsewhere = Files.createDirectories(temp.resolve("etc-caduceus")).resolve("server.yaml");
        Files.writeString(elsewhere, CONFIG);
        try (var f = new Fixture(temp, java.util.Map.of("file.allow_outside_workspace", "true"), java.util.List.of(elsewhere))) {
            Files.createLink(f.workspace.resolve("cfg.txt"), elsewhere);
            assertRefusedEverywhere(f, "cfg.txt", "  api_key: sk-upstream-0123456789");
            assertEquals(refused(elsewhere.toString()), f.text("read_file", "{\"path\": " + q(elsewhere.toString()) + "}"));
        }
    }

    @Test
    void symlinksToProtectedFilesAndToHardLinksOfThemAreRefused() throws Exception {
        var home = home();
        try (var f = new Fixture(temp)) {
            Files.createSymbolicLink(f.workspace.resolve("key-link"), home.resolve("api_key"));
            Files.createSymbolicLink(f.workspace.resolve("config-link"), Path.of("../config.yaml"));
            Files.createLink(f.workspace.resolve("db-hard"), home.resolve("caduceus.db"));
            Files.createSymbolicLink(f.workspace.resolve("db-soft"), f.workspace.resolve("db-hard"));
            for (var name : List.of("key-link", "config-link", "db-soft")) {
                assertEquals(refused(name), f.text("read_file", "{\"path\": " + q(name) + "}"));
                assertEquals(refused(name), f.text("write_file", "{\"path\": " + q(name) + ", \"content\": \"x\"}"));
            }
            var grep = f.text("search_files", "{\"pattern\": \"0123456789\"}");
            assertFalse(grep.contains(KEY) || grep.contains("sk-upstream") || grep.contains("secret-row"), grep);
            assertEquals(KEY + "\n", Files.readString(home.resolve("api_key")));
        }
    }

    @Test
    void filesThatAppearOrAreReplacedAfterStartAreRefusedToo() throws Exception {
        var home = home();
        try (var f = new Fixture(temp)) {
            // a file appears in the state directory (the host's WAL is live: a copy stands in for it);
            // a rotated key is a new inode
            var wal = Files.writeString(home.resolve("caduceus.db-wal.copy"), "wal secret-0123456789\n");
            var tmp = Files.writeString(home.resolve("new-key"), "rotated-key-0123456789\n");
            Files.move(tmp, home.resolve("api_key"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Files.writeString(home.resolve(".env"), "OPENAI_API_KEY=sk-env-0123456789\n");
            Files.createLink(f.workspace.resolve("w"), wal);
            Files.createLink(f.workspace.resolve("k2"), home.resolve("api_key"));
            Files.createLink(f.workspace.resolve("e"), home.resolve(".env"));
            for (var name : List.of("w", "k2", "e")) {
                assertEquals(refused(name), f.text("read_file", "{\"path\": " + q(name) + "}"));
                assertEquals(refusal(name), f.json("patch", replace(name, "0123456789", "x")).get("error").asText());
            }
            var grep = f.text("search_files", "{\"pattern\": \"0123456789\"}");
            assertFalse(grep.contains("secret-0123456789") || grep.contains("rotated-key") || grep.contains("sk-env"), grep);
        }
    }

    @Test
    void unrelatedFilesWithTheSameNamesAreAllowed() throws Exception {
        home();
        try (var f = new Fixture(temp)) {
            Files.writeString(f.workspace.resolve("api_key"), "just a note\n");
            Files.writeString(f.workspace.resolve("config.yaml"), "name: my project\n");
            assertEquals("1|just a note", f.json("read_file", "{\"path\": \"api_key\"}").get("content").asText());
            assertEquals("1|name: my project", f.json("read_file", "{\"path\": \"config.yaml\"}").get("content").asText());
            assertTrue(f.json("write_file", "{\"path\": \"config.yaml\", \"content\": \"name: other\\n\"}")
                    .has("bytes_written"));
            assertTrue(f.json("patch", replace("api_key", "note", "memo")).get("success").asBoolean());
            assertEquals("just a memo\n", Files.readString(f.workspace.resolve("api_key")));
            var grep = f.text("search_files", "{\"pattern\": \"name\"}");
            assertTrue(grep.contains("config.yaml"), grep);
        }
    }

    @Test
    void nothingUnderTheStateDirectoryButTheWorkspaceEvenWithAllowOutside() throws Exception {
        var home = home();
        try (var f = new Fixture(temp, Map.of("file.allow_outside_workspace", "true"))) {
            Files.createDirectories(home.resolve("plugins"));
            Files.writeString(home.resolve("plugins/some-plugin.jar"), "jar");
            Files.writeString(home.resolve("later.txt"), "later\n");
            assertEquals(refused("../plugins/some-plugin.jar"),
                    f.text("read_file", "{\"path\": \"../plugins/some-plugin.jar\"}"));
            assertEquals(refused("../plugins/evil.jar"),
                    f.text("write_file", "{\"path\": \"../plugins/evil.jar\", \"content\": \"x\"}"));
            assertFalse(Files.exists(home.resolve("plugins/evil.jar")));
            assertEquals(refused("../later.txt"), f.text("read_file", "{\"path\": \"../later.txt\"}"));
            assertEquals(refused(".."), f.text("search_files", "{\"pattern\": \"later\", \"path\": \"..\"}"));
            // outside the state directory the flag still works, and so does the workspace inside it
            var other = Files.writeString(temp.resolve("notes.txt"), "hello\n");
            assertEquals("1|hello", f.json("read_file", "{\"path\": " + q(other.toString()) + "}").get("content").asText());
            assertTrue(f.json("write_file", "{\"path\": \"in-workspace.txt\", \"content\": \"x\"}").has("bytes_written"));
            // a search from above the state directory skips it
            var grep = f.text("search_files", "{\"pattern\": \"later|hello\", \"path\": " + q(temp.toString()) + "}");
            assertTrue(grep.contains("notes.txt"), grep);
            assertFalse(grep.contains("later"), grep);
        }
    }

    @Test
    void identitiesComeFromTheUnixView() throws Exception {
        var a = Files.writeString(temp.resolve("a"), "a");
        var b = Files.createLink(temp.resolve("b"), a);
        var c = Files.writeString(temp.resolve("c"), "a");
        assertEquals(ProtectedFiles.identity(a), ProtectedFiles.identity(b));
        assertFalse(ProtectedFiles.identity(a).equals(ProtectedFiles.identity(c)));
        assertTrue(ProtectedFiles.identity(temp.resolve("missing")).isEmpty());
        assertTrue(ProtectedFiles.identity(a).orElseThrow().inode() instanceof Long);
    }
}
