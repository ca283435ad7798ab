package dev.caduceus.platform.host.boot;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The workspace is refused when it holds the state directory or its files, compared as real paths. */
class WorkspaceCheckTest {
    @TempDir Path dir;

    private Path home() throws Exception {
        return Files.createDirectories(dir.resolve("state"));
    }

    private List<Path> files(Path home) {
        return List.of(home.resolve("api_key"), home.resolve("caduceus.db"));
    }

    @Test
    void aWorkspaceThatContainsTheStateDirectoryIsRefusedNamingTheKeyItsSourceAndTheStateDirectory() throws Exception {
        var home = home();
        var e = assertThrows(BootException.class, () -> WorkspaceCheck.check(dir, "environment variable "
                + "CADUCEUS__TOOLS__WORKSPACE", home, files(home)));
        assertEquals(2, e.exitCode());
        var message = e.getMessage();
        assertTrue(message.startsWith("tools.workspace " + dir + " (from environment variable CADUCEUS__TOOLS__WORKSPACE) "
                + "contains the state directory " + home), message);
        assertTrue(message.contains(home + "-workspace"), "names the default: " + message);
    }

    @Test
    void theStateDirectoryItselfIsRefused() throws Exception {
        var home = home();
        var e = assertThrows(BootException.class, () -> WorkspaceCheck.check(home, "/etc/caduceus.yaml", home,
                files(home)));
        assertTrue(e.getMessage().contains("(from /etc/caduceus.yaml) contains the state directory"), e.getMessage());
    }

    @Test
    void aSymlinkToAnAncestorOfTheStateDirectoryIsRefused() throws Exception {
        var home = home();
        var link = Files.createSymbolicLink(dir.resolve("link"), dir);
        assertThrows(BootException.class, () -> WorkspaceCheck.check(link, "default", home, files(home)));
    }

    @Test
    void aWorkspaceHoldingTheConfigFileOrWhereASymlinkedKeyFilePointsIsRefused() throws Exception {
        var home = home();
        var elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        var config = Files.writeString(elsewhere.resolve("config.yaml"), "server: {}\n");
        var e = assertThrows(BootException.class, () -> WorkspaceCheck.check(elsewhere, "default", home,
                List.of(home.resolve("api_key"), config)));
        assertTrue(e.getMessage().contains("(the default) contains " + config), e.getMessage());

        var secrets = Files.createDirectories(dir.resolve("secrets"));
        Files.writeString(secrets.resolve("api_key"), "sha256:…\n");
        Files.createSymbolicLink(home.resolve("api_key"), secrets.resolve("api_key"));
        assertThrows(BootException.class, () -> WorkspaceCheck.check(secrets, "default", home, files(home)));
    }

    @Test
    void aSiblingANewDirectoryAndOneInsideTheStateDirectoryAreAllowed() throws Exception {
        var home = home();
        assertDoesNotThrow(() -> WorkspaceCheck.check(dir.resolve("state-workspace"), "default", home, files(home)));
        assertDoesNotThrow(() -> WorkspaceCheck.check(dir.resolve("a/b/c"), "default", home, files(home)));
        assertDoesNotThrow(() -> WorkspaceCheck.check(home.resolve("workspace"), "default", home, files(home)),
                "inside the state directory: a warning only");
    }

    @Test
    void realPathsOfMissingPathsKeepTheirMissingPart() throws Exception {
        var link = Files.createSymbolicLink(dir.resolve("link"), home());
        assertEquals(dir.toRealPath().resolve("state/x/y"), WorkspaceCheck.real(link.resolve("x/y")));
    }
}
