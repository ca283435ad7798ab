package dev.caduceus.support.files;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Optional;
import java.util.Set;

/**
 * Reading a file of the workspace on the agent's word, safely: the workspace is the agent's, so the path is taken
 * apart segment by segment and each directory opened relative to the last without following a link; the file
 * must be a regular file (not a link, device or pipe). Nothing outside the workspace can be reached this way,
 * whatever links the agent made. Stateless.
 */
public final class WorkspaceFiles {
    /** The path prefix the sandboxed tools see the workspace under. */
    public static final String SANDBOX_ROOT = "/workspace";
    static final int MAX_DEPTH = 16;

    private WorkspaceFiles() {}

    /**
     * The workspace's top-level directory {@code name}, opened without following a link and made when missing; a link
     * or file the agent put in its place is removed first (the link itself, never what it points at).
     */
    public static SecureDirectoryStream<Path> directory(Path workspace, String name) throws IOException {
        Files.createDirectories(workspace);
        try (var root = root(workspace)) {
            var path = Path.of(name);
            try {
                if (!root.getFileAttributeView(path, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .readAttributes().isDirectory()) root.deleteFile(path);
            } catch (NoSuchFileException absent) {
                // made below
            }
            try {
                Files.createDirectory(workspace.resolve(name)); // never follows a final link: one there fails
            } catch (java.nio.file.FileAlreadyExistsException present) {
                // a directory (or a link raced in: the open below refuses it)
            }
            return root.newDirectoryStream(path, LinkOption.NOFOLLOW_LINKS);
        }
    }

    /**
     * What a regular file of the workspace looked like: enough to tell it was written since ({@code key} is the
     * file's identity on its file system, which a replacement changes). Immutable.
     */
    public record Stamp(long size, java.nio.file.attribute.FileTime modified, Object key) {}

    /**
     * The regular files under the workspace's top-level directory {@code top}, by workspace-relative path ("outputs/a/b.png"),
     * from the first {@code maxEntries} entries met (files, directories, links and the rest alike, so that a tree of
     * empty directories costs no more than one of files) and {@value #MAX_DEPTH} levels deep; links are neither
     * followed nor listed. Empty when {@code top} is missing or not a directory (a link in its place included).
     */
    public static java.util.Map<String, Stamp> list(Path workspace, String top, int maxEntries) throws IOException {
        var found = new java.util.LinkedHashMap<String, Stamp>();
        if (!Files.isDirectory(workspace)) return found;
        SecureDirectoryStream<Path> dir;
        try (var root = root(workspace)) {
            dir = root.newDirectoryStream(Path.of(top), LinkOption.NOFOLLOW_LINKS);
        } catch (java.nio.file.FileSystemException absent) {
            return found; // absent, a file, or a link (ELOOP)
        }
        try (dir) {
            walk(dir, top, 1, new int[] {maxEntries}, found);
        }
        return found;
    }

    /** {@code left[0]}: how many more entries may be looked at. */
    private static void walk(SecureDirectoryStream<Path> dir, String prefix, int depth, int[] left,
                             java.util.Map<String, Stamp> found) throws IOException {
        for (var entry : dir) {
            if (left[0]-- <= 0) return;
            var name = entry.getFileName();
            BasicFileAttributes attributes;
            try {
                attributes = dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .readAttributes();
            } catch (NoSuchFileException gone) {
                continue;
            }
            var relative = prefix + "/" + name;
            if (attributes.isRegularFile()) {
                found.put(relative, new Stamp(attributes.size(), attributes.lastModifiedTime(), attributes.fileKey()));
            } else if (attributes.isDirectory() && depth < MAX_DEPTH) {
                try (var sub = dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                    walk(sub, relative, depth + 1, left, found);
                } catch (java.nio.file.FileSystemException raced) {
                    // replaced by a link or removed since it was listed: not followed
                }
            }
        }
    }

    /** The workspace itself as a directory handle (the operator's path: it may be reached through links). */
    private static SecureDirectoryStream<Path> root(Path workspace) throws IOException {
        var stream = Files.newDirectoryStream(workspace);
        if (stream instanceof SecureDirectoryStream<Path> secure) return secure;
        stream.close();
        throw new IOException("this file system cannot open directories safely (no SecureDirectoryStream)");
    }

    /** An opened workspace file: its name, size and bytes (close it). */
    public record Opened(String relativePath, String filename, long bytes, InputStream content) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            content.close();
        }
    }

    /**
     * The workspace-relative form of {@code path} as a tool call names it: relative, under {@code /workspace/}, or
     * under the workspace's host path; empty when it leaves the workspace ({@code ..}, another absolute path).
     */
    public static Optional<String> relative(Path workspace, String path) {
        if (path == null) return Optional.empty();
        var text = path.strip().replace('\\', '/');
        var host = workspace.toAbsolutePath().normalize().toString().replace('\\', '/');
        if (text.equals(SANDBOX_ROOT) || text.equals(host)) return Optional.empty();
        if (text.startsWith(SANDBOX_ROOT + "/")) text = text.substring(SANDBOX_ROOT.length() + 1);
        else if (text.startsWith(host + "/")) text = text.substring(host.length() + 1);
        else if (text.startsWith("/")) return Optional.empty();
        var parts = new ArrayList<String>();
        for (var part : text.split("/")) {
            if (part.isEmpty() || part.equals(".")) continue;
            if (part.equals("..")) return Optional.empty();
            parts.add(part);
        }
        if (parts.isEmpty() || parts.size() > MAX_DEPTH) return Optional.empty();
        return Optional.of(String.join("/", parts));
    }

    /**
     * Opens workspace file {@code relative} (as {@link #relative} gives it) for reading; empty when it is not there,
     * not a regular file, or a link stands anywhere on its way.
     */
    public static Optional<Opened> open(Path workspace, String relative) throws IOException {
        var parts = relative.split("/");
        SecureDirectoryStream<Path> dir;
        try (var root = root(workspace)) {
            dir = root.newDirectoryStream(Path.of("."), LinkOption.NOFOLLOW_LINKS);
        }
        try {
            for (int i = 0; i < parts.length - 1; i++) {
                SecureDirectoryStream<Path> next;
                try {
                    next = dir.newDirectoryStream(Path.of(parts[i]), LinkOption.NOFOLLOW_LINKS);
                } catch (java.nio.file.FileSystemException e) {
                    return Optional.empty(); // absent, not a directory, or a link (ELOOP)
                }
                dir.close();
                dir = next;
            }
            var name = Path.of(parts[parts.length - 1]);
            BasicFileAttributes attributes;
            try {
                attributes = dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .readAttributes();
            } catch (NoSuchFileException e) {
                return Optional.empty();
            }
            if (!attributes.isRegularFile()) return Optional.empty();
            var channel = dir.newByteChannel(name, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
            return Optional.of(new Opened(relative, name.toString(), attributes.size(), Channels.newInputStream(channel)));
        } finally {
            dir.close();
        }
    }
}
