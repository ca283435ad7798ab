package dev.caduceus.platform.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.boot.BootException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The secrets file bin/caduceus writes: NAME=VALUE records ended by NUL, read once and deleted. */
class LaunchEnvironmentTest {
    @TempDir Path dir;

    @Test
    void recordsAreMergedIntoTheEnvironmentAndTheFileIsDeleted() throws Exception {
        var file = dir.resolve("secrets.1");
        var odd = "line one\nline two = 'quoted' \"double\" $HOME \\ é";
        Files.write(file, ("API_SERVER_KEY=k-0123456789abcdef\0OPENAI_API_KEY=" + odd + "\0EMPTY_TOKEN=\0")
                .getBytes(StandardCharsets.UTF_8));
        var env = LaunchEnvironment.load(Map.of("HOME", "/home/ana", "PATH", "/bin"), file.toString());
        assertEquals(Map.of("HOME", "/home/ana", "PATH", "/bin", "API_SERVER_KEY", "k-0123456789abcdef",
                "OPENAI_API_KEY", odd, "EMPTY_TOKEN", ""), env);
        assertFalse(Files.exists(file), "read once, then deleted");
    }

    @Test
    void withoutTheFileTheProcessEnvironmentIsTheEnvironment() throws Exception {
        var process = Map.of("PATH", "/bin");
        assertSame(process, LaunchEnvironment.load(process, null));
    }

    @Test
    void aMissingFileFailsTheStartWithAClearMessage() {
        var missing = dir.resolve("secrets.2");
        var e = assertThrows(BootException.class, () -> LaunchEnvironment.load(Map.of(), missing.toString()));
        assertEquals(2, e.exitCode());
        assertTrue(e.getMessage().startsWith("Cannot read the secrets file " + missing), e.getMessage());
        assertTrue(e.getMessage().contains("API_SERVER_KEY"), e.getMessage());
    }

    @Test
    void aTruncatedOrMalformedFileFailsAndIsDeletedAnyway() throws Exception {
        for (var content : new String[] {"API_SERVER_KEY=abc", "=abc\0", "NOEQUALS\0"}) {
            var file = Files.writeString(dir.resolve("secrets.3"), content);
            var e = assertThrows(BootException.class, () -> LaunchEnvironment.load(Map.of(), file.toString()));
            assertFalse(e.getMessage().contains("abc"), "never repeats a value: " + e.getMessage());
            assertFalse(Files.exists(file), content);
        }
    }

    @Test
    void secretsFilesOfProcessesThatAreGoneAreDeleted() throws Exception {
        var gone = new ProcessBuilder("true").start();
        gone.waitFor();
        var stale = Files.writeString(dir.resolve("secrets." + gone.pid()), "A_KEY=x\0");
        var live = Files.writeString(dir.resolve("secrets." + ProcessHandle.current().pid()), "A_KEY=x\0");
        var other = Files.writeString(dir.resolve("secrets.txt"), "not ours");
        var ours = Files.writeString(dir.resolve("secrets.4"), "A_KEY=y\0");
        LaunchEnvironment.load(Map.of(), ours.toString());
        assertFalse(Files.exists(stale));
        assertTrue(Files.exists(live), "a live process's file is left alone");
        assertTrue(Files.exists(other));
    }
}
