package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What bin/caduceus adds to a start: SQLite's native library comes from the distribution's
 * {@code native/} folder when it has this platform's, and is extracted by sqlite-jdbc into
 * {@code $CADUCEUS_HOME/tmp} as before when it does not.
 */
class LauncherIT {
    @TempDir Path home;

    @Test
    void theBundledSqliteLibraryIsUsedSoNothingIsExtractedAtStart() throws Exception {
        assumeTrue(Files.isDirectory(Caduceus.DIST.resolve("native").resolve(sqliteFolder())),
                "no bundled SQLite library for " + sqliteFolder());
        try (var server = Caduceus.serve(home, Caduceus.KEY_ENV)) {
            assertEquals(200, server.get("/health/detailed", Caduceus.KEY_AUTH).statusCode());
            assertEquals(List.of(), extractedLibraries(), "sqlite-jdbc extracted its library anyway");
        }
    }

    @Test
    void withoutTheBundledLibrarySqliteJdbcExtractsItsOwn(@TempDir Path copy) throws Exception {
        // A distribution without native/: the launcher script itself, the rest linked.
        Files.createDirectories(copy.resolve("bin"));
        Files.copy(Caduceus.DIST.resolve("bin/caduceus"), copy.resolve("bin/caduceus"));
        for (var dir : List.of("lib", "plugins", "conf"))
            Files.createSymbolicLink(copy.resolve(dir), Caduceus.DIST.resolve(dir).toAbsolutePath());
        try (var server = Caduceus.serve(copy, home, Map.of("API_SERVER_KEY", Caduceus.TEST_KEY,
                "CADUCEUS_AOT", "off"))) {
            assertEquals(200, server.get("/health/detailed", Caduceus.KEY_AUTH).statusCode());
            assertEquals(1, extractedLibraries().size(), "expected sqlite-jdbc's own extraction");
        }
    }

    /** The libraries sqlite-jdbc extracted into {@code $CADUCEUS_HOME/tmp} ({@code sqlite-<version>-<uuid>-…}). */
    private List<String> extractedLibraries() throws IOException {
        try (var files = Files.list(home.resolve("tmp"))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("sqlite-") && !n.endsWith(".lck")).toList();
        }
    }

    /** sqlite-jdbc's folder name for this platform, as bin/caduceus picks it (glibc Linux and macOS). */
    private static String sqliteFolder() {
        var os = System.getProperty("os.name").startsWith("Mac") ? "Mac" : "Linux";
        var arch = switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> "unknown";
        };
        return os + "/" + arch;
    }
}
