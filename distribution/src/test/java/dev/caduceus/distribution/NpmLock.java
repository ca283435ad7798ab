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
}
