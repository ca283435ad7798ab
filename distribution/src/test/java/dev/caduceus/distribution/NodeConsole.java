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
        Files.createDirectories(DIR);
        var lock = Files.readString(SOURCE.resolve("package-lock.json"));
        var installed = DIR.resolve("package-lock.json");
        if (!Files.isDirectory(DIR.resolve("node_modules/playwright-core")) || !Files.exists(installed)
                || !Files.readString(installed).equals(lock)) {
            for (var file : new String[] {"package.json", "package-lock.json"})
                Files.copy(SOURCE.resolve(file), DIR.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            var builder = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund").directory(DIR.toFile())
                    .redirectErrorStream(true);
            builder.environment().put("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
            var npm = builder.start();
            var output = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(npm.waitFor(300, TimeUnit.SECONDS), "npm ci timed out");
            assertEquals(0, npm.exitValue(), "npm ci failed:\n" + output);
        }
        NpmLock.copyIfChanged(SOURCE.resolve("console.mjs"), DIR.resolve("console.mjs"));
        return DIR.resolve("console.mjs").toAbsolutePath();
    }
}
