package dev.caduceus.plugin.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PathGuardTest {
    @TempDir Path temp;

    private String outside(Fixture f, String path) {
        return "{\"error\": \"Path is outside the workspace: " + path + ". File tools are limited to "
                + f.workspace + ".\"}";
    }

    @Test
    void refusesTraversalAbsoluteAndHomePaths() {
        try (var f = new Fixture(temp)) {
            assertEquals(outside(f, "../../etc/passwd"), f.text("read_file", "{\"path\": \"../../etc/passwd\"}"));
            assertEquals(outside(f, "/etc/passwd"), f.text("read_file", "{\"path\": \"/etc/passwd\"}"));
            assertEquals(outside(f, "../x.txt"), f.text("write_file", "{\"path\": \"../x.txt\", \"content\": \"x\"}"));
            assertFalse(Files.exists(f.home.resolve("x.txt")));
            var ssh = f.text("read_file", "{\"path\": \"~/.ssh/id_rsa\"}");
            assertEquals("{\"error\": \"Access to ~/.ssh/id_rsa is not allowed (protected file).\"}", ssh);
        }
    }

    @Test
    void slashWorkspaceNamesTheWorkspaceAsInTheSandbox() throws Exception {
        try (var f = new Fixture(temp)) {
            f.text("write_file", "{\"path\": \"/workspace/notes/a.txt\", \"content\": \"from the sandbox view\"}");
            assertEquals("from the sandbox view", Files.readString(f.workspace.resolve("notes/a.txt")));
            assertTrue(f.text("read_file", "{\"path\": \"/workspace/notes/a.txt\"}").contains("from the sandbox view"));
            assertEquals(outside(f, "/workspace/../etc/passwd"), f.text("read_file", "{\"path\": \"/workspace/../etc/passwd\"}"));
            assertEquals(outside(f, "/workspaces/x"), f.text("read_file", "{\"path\": \"/workspaces/x\"}"));
        }
    }

    @Test
    void refusesASymlinkInsideThatPointsOutside() throws Exception {
        try (var f = new Fixture(temp)) {
            var secret = Files.writeString(temp.resolve("secret.txt"), "s3cret");
            Files.createSymbolicLink(f.workspace.resolve("link.txt"), secret);
            Files.createSymbolicLink(f.workspace.resolve("dir"), temp);
            assertEquals(outside(f, "link.txt"), f.text("read_file", "{\"path\": \"link.txt\"}"));
            assertEquals(outside(f, "dir/new.txt"), f.text("write_file", "{\"path\": \"dir/new.txt\", \"content\": \"x\"}"));
            assertFalse(Files.exists(temp.resolve("new.txt")));
            assertFalse(f.text("search_files", "{\"pattern\": \"s3cret\"}").contains("s3cret\""));
        }
    }

    @Test
    void protectedFilesStayRefusedWithAllowOutside() throws Exception {
        try (var f = new Fixture(temp, Map.of("file.allow_outside_workspace", "true"))) {
            Files.writeString(f.home.resolve("api_key"), "k");
            assertEquals("{\"error\": \"Access to ../api_key is not allowed (protected file).\"}",
                    f.text("read_file", "{\"path\": \"../api_key\"}"));
            assertTrue(f.text("read_file", "{\"path\": " + Fixture.q(f.home.resolve("config.yaml").toString()) + "}")
                    .contains("protected file"));
            assertTrue(f.text("read_file", "{\"path\": \"caduceus.db-wal\"}").contains("protected file"));
            assertTrue(f.text("read_file", "{\"path\": \"~/.ssh/id_ed25519\"}").contains("protected file"));
            assertTrue(f.text("write_file", "{\"path\": \"/etc/hosts\", \"content\": \"x\"}").contains("protected file"));
            assertTrue(f.text("write_file", "{\"path\": \"~/.bashrc\", \"content\": \"x\"}").contains("protected file"));
            assertTrue(f.text("patch", "{\"mode\": \"replace\", \"path\": \"~/.ssh/config\", \"old_string\": \"a\", "
                    + "\"new_string\": \"b\"}").contains("protected file"));
        }
    }

    @Test
    void allowOutsideLetsOtherPathsThrough() throws Exception {
        try (var f = new Fixture(temp, Map.of("file.allow_outside_workspace", "true"))) {
            var other = Files.writeString(temp.resolve("notes.txt"), "hello\n");
            assertEquals("1|hello", f.json("read_file", "{\"path\": " + Fixture.q(other.toString()) + "}")
                    .get("content").asText());
            assertTrue(f.json("write_file", "{\"path\": \"../../out.txt\", \"content\": \"x\"}").has("bytes_written"));
            assertTrue(Files.exists(temp.resolve("out.txt")));
        }
    }

    @Test
    void workspaceIsCreatedPrivate() throws Exception {
        try (var f = new Fixture(temp)) {
            assertTrue(Files.isDirectory(f.workspace));
            assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(f.workspace)));
        }
    }
}
