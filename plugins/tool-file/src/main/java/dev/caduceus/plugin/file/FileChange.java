package dev.caduceus.plugin.file;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * One file's planned change: its content before and after ({@code null} = the file does not exist).
 *
 * @param file    the resolved path
 * @param name    the path as the patch named it, for results and diffs
 */
record FileChange(Path file, String name, String before, String after) {
    FileChange {
        requireNonNull(file, "file");
        requireNonNull(name, "name");
    }

    boolean created() { return before == null && after != null; }

    boolean deleted() { return before != null && after == null; }
}
