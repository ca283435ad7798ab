package dev.caduceus.distribution;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;

/**
 * Holds {@code <dir>.lock} while an npm directory is installed into or read from: the failsafe
 * forks run test classes in parallel JVMs, and two of them may want the same {@code node_modules}
 * at once. Within one JVM the callers are {@code synchronized} (a file lock is per process).
 */
final class NpmLock {
    private NpmLock() {}

    static <T> T holding(Path dir, Callable<T> body) throws Exception {
        var lockFile = dir.resolveSibling(dir.getFileName() + ".lock");
        Files.createDirectories(lockFile.getParent());
        try (var channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             var lock = channel.lock()) {
            return body.call();
        }
    }

    /**
     * Copies {@code source} to {@code target} unless it already holds the same bytes: a script
     * another fork may be starting right now is never deleted and rewritten under it.
     */
    static void copyIfChanged(Path source, Path target) throws java.io.IOException {
        if (Files.exists(target) && Files.mismatch(source, target) == -1) return;
        Files.copy(source, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Installs {@code source}'s {@code package.json} and {@code package-lock.json} into {@code dir} with {@code npm ci},
     * unless {@code node_modules/<marker>} is there and was installed from the same lockfile. Call with the lock held.
     *
     * @param env extra environment of npm ({@code PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD}); may be empty
     */
    static void ci(Path source, Path dir, String marker, java.util.Map<String, String> env) throws Exception {
        Files.createDirectories(dir);
        var lock = Files.readString(source.resolve("package-lock.json"));
        var installed = dir.resolve("package-lock.json");
        if (Files.isDirectory(dir.resolve("node_modules").resolve(marker)) && Files.exists(installed)
                && Files.readString(installed).equals(lock))
            return;
        for (var file : new String[] {"package.json", "package-lock.json"})
            Files.copy(source.resolve(file), dir.resolve(file), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        var builder = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund").directory(dir.toFile())
                .redirectErrorStream(true);
        builder.environment().putAll(env);
        var npm = builder.start();
        var output = new String(npm.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        org.junit.jupiter.api.Assertions.assertTrue(npm.waitFor(300, java.util.concurrent.TimeUnit.SECONDS), "npm ci timed out");
        org.junit.jupiter.api.Assertions.assertEquals(0, npm.exitValue(), "npm ci failed:\n" + output);
    }
}
