package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;

/**
 * {@code playwright-core}, pinned by the lockfile in {@code src/test/node/console}, installed with
 * {@code npm ci} into {@code target/console-npm} on first use (with
 * {@code PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1}: it drives Debian's {@code /usr/bin/chromium}, and
 * nothing may download a browser), and the script {@code console.mjs} next to it.
 */
final class NodeConsole {
    static final Path DIR = Path.of("target/console-npm");
    static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CADUCEUS_CHROMIUM", "/usr/bin/chromium"));
    private static final Path SOURCE = Path.of("src/test/node/console");

    private NodeConsole() {}

    /** The script, next to an installed {@code node_modules} (installed when missing or the lockfile changed). */
    static synchronized Path script() throws Exception {
        assertTrue(Files.isExecutable(CHROMIUM), CHROMIUM + " is missing: install Debian's chromium (.ci/run does)");
        return NpmLock.holding(DIR, NodeConsole::install);
    }

    private static Path install() throws Exception {
        NpmLock.ci(SOURCE, DIR, "playwright-core", java.util.Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1"));
        NpmLock.copyIfChanged(SOURCE.resolve("console.mjs"), DIR.resolve("console.mjs"));
        return DIR.resolve("console.mjs").toAbsolutePath();
    }
}
