package dev.caduceus.support.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link WorkspaceFiles#list}: regular files by workspace-relative path, a changed file's stamp changes, links are
 * neither followed nor listed (in place of the directory itself too), and a tree of empty directories counts
 * against the entries it may look at as files do.
 */
class WorkspaceFilesListTest {
    @TempDir Path workspace;
    @TempDir Path elsewhere;

    @Test
    void regularFilesAreListedWithStampsThatChangeWhenTheyAreWritten() throws Exception {
        var outputs = Files.createDirectories(workspace.resolve("outputs/charts"));
        Files.writeString(workspace.resolve("outputs/report.md"), "one");
        Files.writeString(outputs.resolve("a.csv"), "1,2");
        Files.writeString(elsewhere.resolve("secret"), "server's");
        Files.createSymbolicLink(workspace.resolve("outputs/secret"), elsewhere.resolve("secret"));
        Files.createSymbolicLink(workspace.resolve("outputs/away"), elsewhere);
        var before = WorkspaceFiles.list(workspace, "outputs", 100);
        assertEquals(Set.of("outputs/report.md", "outputs/charts/a.csv"), before.keySet());

        Files.writeString(workspace.resolve("outputs/report.md"), "two!");
        var after = WorkspaceFiles.list(workspace, "outputs", 100);
        assertNotEquals(before.get("outputs/report.md"), after.get("outputs/report.md"));
        assertEquals(before.get("outputs/charts/a.csv"), after.get("outputs/charts/a.csv"));
    }

    @Test
    void aLinkInPlaceOfTheDirectoryListsNothing() throws Exception {
        Files.writeString(elsewhere.resolve("secret"), "server's");
        Files.createSymbolicLink(workspace.resolve("outputs"), elsewhere);
        assertEquals(Set.of(), WorkspaceFiles.list(workspace, "outputs", 100).keySet());
        assertEquals(Set.of(), WorkspaceFiles.list(workspace, "missing", 100).keySet());
    }

    @Test
    void emptyDirectoriesCountAgainstTheEntriesLookedAt() throws Exception {
        for (int i = 0; i < 50; i++) Files.createDirectories(workspace.resolve("outputs/d" + i + "/e"));
        for (int i = 0; i < 50; i++) Files.writeString(workspace.resolve("outputs/d" + i + "/e/f.txt"), "x");
        var listed = WorkspaceFiles.list(workspace, "outputs", 30);
        assertTrue(listed.size() <= 10, "30 entries looked at, at most a third of them files: " + listed.size());
        assertEquals(50, WorkspaceFiles.list(workspace, "outputs", 1_000).size());
    }
}
