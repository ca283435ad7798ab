package dev.caduceus.plugin.file;

import dev.caduceus.spi.tool.Cancellation;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The files {@code search_files} looks at under a root: directories {@code .git},
 * {@code node_modules} and {@code __pycache__} skipped, symlinks not followed unless their target
 * is readable through the {@link PathGuard}, protected files left out. Stateless.
 */
final class TreeWalk {
    static final Set<String> SKIPPED_DIRS = Set.of(".git", "node_modules", "__pycache__");
    static final int MAX_FILES = 200_000;

    private TreeWalk() {}

    /** A file found, with its modification time (for newest-first ordering). */
    record Found(Path file, long modified, long size) {}

    /** Every regular file under {@code root} (or {@code root} itself when it is a file). */
    static List<Found> files(Path root, PathGuard guard, Cancellation cancellation) throws IOException {
        var out = new ArrayList<Found>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                if (cancellation.isCancelled()) return FileVisitResult.TERMINATE;
                var name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                return !dir.equals(root) && SKIPPED_DIRS.contains(name)
                        ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (out.size() >= MAX_FILES) return FileVisitResult.TERMINATE;
                if (attrs.isSymbolicLink()) {
                    if (Files.isRegularFile(file) && guard.readable(file))
                        out.add(new Found(file, Files.getLastModifiedTime(file).toMillis(), Files.size(file)));
                } else if (attrs.isRegularFile() && guard.readable(file)) {
                    out.add(new Found(file, attrs.lastModifiedTime().toMillis(), attrs.size()));
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
        return out;
    }
}
